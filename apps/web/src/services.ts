/**
 * The composition root of the app's collaborators (platform, API client, query client, console
 * controller, outbox, realtime feed): {@link createServices} makes them once, at the top, and
 * wires them together. Components reach them through `use-services.ts`.
 */
import type { QueryClient } from '@tanstack/react-query';
import { ApiClient } from './api/api-client';
import { watchIncomingCalls } from './attention/incoming-alerts';
import { SoundGate } from './attention/sound-gate';
import { QUERY_KEYS, callUserQuery, createQueryClient, userQuery } from './api/queries';
import { ConsoleController } from './console/console-controller';
import { KeptWrites } from './console/kept-writes';
import { createBrowserOutbox } from './outbox/browser-outbox';
import type { Outbox } from './outbox/outbox';
import type { PhoneFactory } from './phone/phone-port';
import { RealtimeFeed } from './realtime/realtime-feed';
import type { Platform } from './platform/platform';
import { FirstView, type Services } from './use-services';

/** What the app is built from. */
export interface ServicesOptions {
  readonly platform: Platform;
  readonly phoneFactory: PhoneFactory;
  readonly queryClient?: QueryClient;
  /** The outbox (the browser's IndexedDB one by default; tests may give their own). */
  readonly outbox?: Outbox;
}

/** Wires the API client, query client and console controller together. */
export function createServices({
  platform,
  phoneFactory,
  queryClient,
  outbox: givenOutbox,
}: ServicesOptions): Services {
  const client = queryClient ?? createQueryClient();
  const api = new ApiClient({
    fetch: platform.fetch,
    reload: () => platform.reload(),
    now: () => platform.clock.now(),
  });
  // The session check starts now, before the first render: the login page or the console waits
  // for it (and the query is kept for good, so mounting does not ask again).
  const session = client.fetchQuery(userQuery(api));
  const outbox = givenOutbox ?? createBrowserOutbox(platform);
  const writes = new KeptWrites(outbox, api);
  const controller = new ConsoleController({
    api,
    writes,
    phoneFactory,
    timers: platform.timers,
    clock: platform.clock,
    log: platform.log,
    alert: (message) => platform.alert(message),
    audioStorage: platform.storage,
    desktop: platform.attention.desktop.isDesktop,
    loadCallUser: (callUserId) => client.fetchQuery(callUserQuery(api, callUserId)),
  });
  // No session: the login view, as soon as the answer is in (the screen's own check, for any
  // later answer, comes a render after the query's observers hear of it).
  session.then(
    (user) => {
      if (user === null) controller.userMissing();
    },
    () => controller.userMissing(),
  );
  refreshHistoryOnChange(client, controller, outbox);
  // A ringing call is signalled to the desktop wrapper and, out of view, notified.
  watchIncomingCalls(controller, platform.attention);
  const soundGate = new SoundGate(platform.attention.sound);
  const realtime = new RealtimeFeed({
    port: platform.realtime,
    queryClient: client,
    log: platform.log,
    timers: platform.timers,
  });
  return {
    platform,
    api,
    queryClient: client,
    controller,
    outbox,
    writes,
    soundGate,
    realtime,
    firstView: new FirstView(),
  };
}

/**
 * The Call History is read again when a call ends (a new row) and when the outbox has delivered
 * everything (the row's result, tag and notes are on the server now).
 */
function refreshHistoryOnChange(
  client: QueryClient,
  controller: ConsoleController,
  outbox: Outbox,
): void {
  const refresh = () => void client.invalidateQueries({ queryKey: QUERY_KEYS.history });
  let onCall = false;
  controller.subscribe(() => {
    const live = controller.state.call !== null;
    if (onCall && !live) refresh();
    onCall = live;
  });
  let saved = false;
  outbox.subscribe(() => {
    const nowSaved = outbox.getSnapshot().state === 'saved';
    if (nowSaved && !saved) refresh();
    saved = nowSaved;
  });
}
