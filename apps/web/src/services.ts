/**
 * The app's collaborators (platform, API client, query client, console controller), created once
 * at the top and reached by components through {@link useServices}, plus the hooks that subscribe
 * to them.
 */
import type { QueryClient } from '@tanstack/react-query';
import { createContext, use, useEffect, useState, useSyncExternalStore } from 'react';
import { ApiClient } from './api/api-client';
import { watchIncomingCalls } from './attention/incoming-alerts';
import { SoundGate } from './attention/sound-gate';
import { QUERY_KEYS, callUserQuery, createQueryClient, userQuery } from './api/queries';
import {
  ConsoleController,
  type ConsoleSnapshot,
  type VolumeLevels,
} from './console/console-controller';
import { KeptWrites } from './console/kept-writes';
import { createBrowserOutbox } from './outbox/browser-outbox';
import type { Outbox } from './outbox/outbox';
import type { OutboxSnapshot } from './outbox/outbox-lifecycle';
import type { SoundPolicyState } from './attention/attention-port';
import type { PhoneFactory } from './phone/phone-port';
import { RealtimeFeed } from './realtime/realtime-feed';
import type { Platform } from './platform/platform';

/** Everything components may reach. */
export interface Services {
  readonly platform: Platform;
  readonly api: ApiClient;
  readonly queryClient: QueryClient;
  readonly controller: ConsoleController;
  /** The persistent outbox of the after-call writes (its status drives the Saving… line). */
  readonly outbox: Outbox;
  /** The after-call writes through the outbox; started for the signed-in user. */
  readonly writes: KeptWrites;
  /** Whether the browser lets the ringtone play (autoplay policy); started for the signed-in user. */
  readonly soundGate: SoundGate;
  /** Teammates' and the agent's own status, live (pusher-js); started for the signed-in user. */
  readonly realtime: RealtimeFeed;
  /** The console's first view (login or the console itself) has been shown: set by the screen. */
  readonly firstView: FirstView;
}

/** Resolves `shown` once the console has shown its first view, past the loading screen. */
export class FirstView {
  #markShown: () => void = () => undefined;
  readonly shown = new Promise<void>((resolve) => (this.#markShown = resolve));

  markShown(): void {
    this.#markShown();
  }
}

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

/** Provides {@link Services} to the tree. */
export const ServicesContext = createContext<Services | null>(null);

/** The app's services; throws outside the app. */
export function useServices(): Services {
  const services = use(ServicesContext);
  if (!services) throw new Error('useServices needs <App>');
  return services;
}

/** The console state and phone status, re-rendering on change. */
export function useConsoleSnapshot(): ConsoleSnapshot {
  const { controller } = useServices();
  return useSyncExternalStore(controller.subscribe, controller.getSnapshot);
}

/** The console's timestamped error log (Copy Error Logs), re-rendering with each new line. */
export function useErrorLog(): readonly string[] {
  const { errors } = useServices().controller;
  return useSyncExternalStore(errors.subscribe, errors.getSnapshot);
}

/** The outbox's status: pending writes, saving or waiting, saved, the last refusal. */
export function useOutboxStatus(): OutboxSnapshot {
  const { outbox } = useServices();
  return useSyncExternalStore(outbox.subscribe, outbox.getSnapshot);
}

/** Whether the browser lets sound play: `blocked` until the agent interacts with the page. */
export function useSoundPolicy(): SoundPolicyState {
  const { soundGate } = useServices();
  return useSyncExternalStore(soundGate.subscribe, soundGate.getSnapshot);
}

/** The call's live volume levels. */
export function useVolume(): VolumeLevels {
  const { controller } = useServices();
  return useSyncExternalStore(controller.subscribeVolume, controller.getVolume);
}

/** Whether the browser is online (`navigator.onLine`). */
export function useOnline(): boolean {
  const { network } = useServices().platform;
  return useSyncExternalStore(
    (listener) => network.subscribe(listener),
    () => network.isOnline(),
  );
}

/** The injected clock's time, refreshed every `intervalMs`. */
export function useNow(intervalMs: number): number {
  const { clock, timers } = useServices().platform;
  const [now, setNow] = useState(() => clock.now());
  useEffect(() => {
    const handle = timers.setInterval(() => setNow(clock.now()), intervalMs);
    return () => timers.clearInterval(handle);
  }, [clock, timers, intervalMs]);
  return now;
}
