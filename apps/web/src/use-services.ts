/**
 * The app's services as components reach them: what {@link Services} holds, the context that
 * provides it (filled by `services.ts`, the composition root, through `<App>`), and the hooks
 * that subscribe to the services' stores.
 */
import type { QueryClient } from '@tanstack/react-query';
import { createContext, use, useEffect, useState, useSyncExternalStore } from 'react';
import type { ApiClient } from './api/api-client';
import type { SoundPolicyState } from './attention/attention-port';
import type { SoundGate } from './attention/sound-gate';
import type {
  ConsoleController,
  ConsoleSnapshot,
  VolumeLevels,
} from './console/console-controller';
import type { KeptWrites } from './console/kept-writes';
import type { Outbox } from './outbox/outbox';
import type { OutboxSnapshot } from './outbox/outbox-lifecycle';
import type { Platform } from './platform/platform';
import type { RealtimeFeed } from './realtime/realtime-feed';

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
