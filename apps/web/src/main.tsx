/**
 * The entry point: mounts the console on `#app` with the real browser platform and the
 * configured softphone SDK (loaded lazily) behind the phone port, and registers the service
 * worker that keeps the console's shell for offline reloads once the first view is on screen.
 * The session check is sent first of all (`early-session.ts`).
 */
// First: sends the session check before the modules below are evaluated.
import { earlyUser } from './early-session';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { servingEarlyUser } from './api/early-user';
import { App } from './app';
import { MOUNT_ELEMENT_ID } from './constants';
import { loadPhone } from './phone/load-phone';
import { browserPlatform } from './platform/browser-platform';
import { createServices } from './services';
import { registerServiceWorker } from './sw/register';
import './styles.css';

const root = document.getElementById(MOUNT_ELEMENT_ID);
if (!root) throw new Error(`The page has no #${MOUNT_ELEMENT_ID} element.`);

const browser = browserPlatform(window);
// The console's first user fetch takes the session check sent at the top of this module.
const platform = { ...browser, fetch: servingEarlyUser(browser.fetch, earlyUser) };
// Made before React renders: making them starts the session check the first view waits for.
const services = createServices({ phoneFactory: loadPhone, platform });
createRoot(root).render(
  <StrictMode>
    <App phoneFactory={loadPhone} platform={platform} services={services} />
  </StrictMode>,
);
registerServiceWorker(window, (message) => platform.log.info(message), services.firstView.shown);
