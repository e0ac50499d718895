/**
 * The entry point: mounts the console on `#app` with the real browser platform and the
 * configured softphone SDK (loaded lazily) behind the phone port, and registers the service
 * worker that keeps the console's shell for offline reloads once the first view is on screen.
 */
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app';
import { MOUNT_ELEMENT_ID } from './constants';
import { loadPhone } from './phone/load-phone';
import { browserPlatform } from './platform/platform';
import { createServices } from './services';
import { registerServiceWorker } from './sw/register';
import './styles.css';

const root = document.getElementById(MOUNT_ELEMENT_ID);
if (!root) throw new Error(`The page has no #${MOUNT_ELEMENT_ID} element.`);

const platform = browserPlatform(window);
// Made before React renders: making them starts the session check the first view waits for.
const services = createServices({ phoneFactory: loadPhone, platform });
createRoot(root).render(
  <StrictMode>
    <App phoneFactory={loadPhone} platform={platform} services={services} />
  </StrictMode>,
);
registerServiceWorker(window, (message) => platform.log.info(message), services.firstView.shown);
