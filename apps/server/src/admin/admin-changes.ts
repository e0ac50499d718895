/**
 * What an admin changed, told to every instance (issue 37: every change takes effect without a
 * restart, on every instance). An admin write announces itself after its transaction commits;
 * the listeners of this instance run at once, and the other instances' listeners run when the
 * instance bus delivers the message (`admin.changed`). Listeners drop what they remember of the
 * account (the routing settings cache, the router's eligible agents, API keys) so the next read
 * goes to the database.
 *
 * A message lost while an instance reconnects to the bus is covered by the caches' own short
 * lifetimes (a few seconds): nothing here must be the only way a change is seen.
 */
import { z } from 'zod';
import { routingChanged } from '../db/routing-changes';
import type { InstanceBus } from '../events/instance-bus';

/** The bus topic of admin changes. */
export const ADMIN_CHANGED_TOPIC = 'admin.changed';

/** What kind of thing changed. */
export const ADMIN_CHANGE_KINDS = [
  'users',
  'teams',
  'account',
  'profiles',
  'caller-numbers',
  'api-keys',
] as const;
export type AdminChangeKind = (typeof ADMIN_CHANGE_KINDS)[number];

/** One change: of which account, what kind. */
export interface AdminChange {
  accountId: number;
  what: AdminChangeKind;
}

const AdminChangeMessage = z.object({
  accountId: z.int().positive(),
  what: z.enum(ADMIN_CHANGE_KINDS),
});

/** Logs what goes wrong. */
interface Log {
  warn(details: object, message: string): void;
}

/** Options of {@link AdminChanges}. */
export interface AdminChangesOptions {
  /** The other instances; absent: this process is the only one. */
  bus?: InstanceBus | null;
  log?: Log;
}

/** Admin changes on this instance and from the others. */
export class AdminChanges {
  readonly #listeners = new Set<(change: AdminChange) => void>();
  readonly #options: AdminChangesOptions;
  readonly #unsubscribe: () => void;

  constructor(options: AdminChangesOptions = {}) {
    this.#options = options;
    this.#unsubscribe =
      options.bus?.subscribe(ADMIN_CHANGED_TOPIC, (payload) => {
        const parsed = AdminChangeMessage.safeParse(payload);
        if (parsed.success) this.#deliver(parsed.data);
        else
          options.log?.warn({ payload }, 'an instance sent an admin change this one cannot read');
      }) ?? (() => undefined);
  }

  /** Calls `listener` with every change, made here or on another instance; returns the removal. */
  onChange(listener: (change: AdminChange) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * A change was committed: this instance's listeners run now, the other instances' when the bus
   * delivers it. Never throws (the change is made; a bus failure is logged).
   */
  async announce(change: AdminChange): Promise<void> {
    this.#deliver(change);
    await this.#options.bus
      ?.publish(ADMIN_CHANGED_TOPIC, { accountId: change.accountId, what: change.what })
      .catch((error: unknown) =>
        this.#options.log?.warn({ err: error }, 'telling the other instances of a change failed'),
      );
  }

  /** Stops listening to the other instances. */
  stop(): void {
    this.#unsubscribe();
  }

  #deliver(change: AdminChange): void {
    for (const listener of [...this.#listeners]) {
      try {
        listener(change);
      } catch (error) {
        this.#options.log?.warn({ err: error }, 'an admin change listener failed');
      }
    }
  }
}

/** What this instance remembers of accounts' settings: forgotten at every admin change. */
export interface AdminChangeCaches {
  /** The routing settings cache (`profiles/settings-cache.ts`), on the instance with the calls. */
  settings?: { forget(): void } | undefined;
}

/**
 * Makes every admin change (here or on another instance) drop this instance's caches: the
 * routing settings and the router's memory of eligible agents (`routingChanged`).
 */
export function forgetOnAdminChange(changes: AdminChanges, caches: AdminChangeCaches): () => void {
  return changes.onChange(() => {
    caches.settings?.forget();
    routingChanged();
  });
}

const fallbacks = new WeakMap<object, AdminChanges>();

/**
 * The admin changes of an application's services: `services.adminChanges` (the product wires
 * one on the instance bus), else one of this process only, made once per services object, that
 * drops the caches of `services.flows` when there are flows (tests' applications).
 */
export function adminChangesOf(services: {
  adminChanges?: AdminChanges | undefined;
  flows?: { settings: { forget(): void } };
}): AdminChanges {
  if (services.adminChanges) return services.adminChanges;
  let local = fallbacks.get(services);
  if (!local) {
    local = new AdminChanges();
    forgetOnAdminChange(local, { settings: services.flows?.settings });
    fallbacks.set(services, local);
  }
  return local;
}
