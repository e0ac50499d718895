/**
 * The device's lifecycle (spec section 4):
 *
 * ```
 * unregistered ──register──▶ registering ──ready──▶ registered
 *      ▲                          │                     │
 *      └────────offline───────────┴───────offline───────┘
 *   (any) ──destroy──▶ destroyed
 * ```
 * `register()` only from unregistered, `unregister()` only from registered, nothing after
 * `destroy()`.
 */
import type { TransitionTable } from '@leadline/contracts/lib';

/** States of a device. */
export const DeviceState = {
  Unregistered: 'unregistered',
  Registering: 'registering',
  Registered: 'registered',
  Destroyed: 'destroyed',
} as const;
export type DeviceState = (typeof DeviceState)[keyof typeof DeviceState];

/** What moves a device between states. */
export type DeviceTransition = 'register' | 'ready' | 'offline' | 'destroy';

/** The device's transition table. */
export const DEVICE_TABLE: TransitionTable<DeviceState, DeviceTransition> = {
  unregistered: { register: 'registering', offline: 'unregistered', destroy: 'destroyed' },
  registering: { ready: 'registered', offline: 'unregistered', destroy: 'destroyed' },
  registered: { ready: 'registered', offline: 'unregistered', destroy: 'destroyed' },
  destroyed: {},
};
