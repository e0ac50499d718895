import { QueryClientProvider, type QueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import type { PhoneFactory } from './phone/phone-port';
import type { Platform } from './platform/platform';
import { createServices } from './services';
import { ServicesContext, type Services } from './use-services';
import { ConsoleScreen } from './shell/console-screen';

/** Props of {@link App}: everything from outside is injected here. */
export interface AppProps {
  /** Creates the softphone device (the SDK adapter in production, `FakePhone` in tests). */
  readonly phoneFactory: PhoneFactory;
  /** The browser (`browserPlatform()` in production, `createFakePlatform()` in tests). */
  readonly platform: Platform;
  /** A query client to use (tests pass a fresh one); one is created otherwise. */
  readonly queryClient?: QueryClient;
  /**
   * The services, made before React renders (the entry point makes them at once so that the
   * session check starts while the page is still loading); made from the props otherwise.
   */
  readonly services?: Services;
}

/** The Leadline call console. */
export function App({ phoneFactory, platform, queryClient, services: given }: AppProps) {
  const [services] = useState(
    () => given ?? createServices({ phoneFactory, platform, queryClient }),
  );
  return (
    <QueryClientProvider client={services.queryClient}>
      <ServicesContext value={services}>
        <ConsoleScreen />
      </ServicesContext>
    </QueryClientProvider>
  );
}
