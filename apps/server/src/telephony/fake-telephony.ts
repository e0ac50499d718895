/**
 * A telephony provider for tests of the server's flows: it records every command and lets the
 * test play the events a real provider would send. The embedded engine is tested for real in
 * the voice package and end to end.
 */
import type { WireError } from '@leadline/contracts/signalling';
import type { Telephony, TelephonyEvent } from './telephony';

/** One recorded command. */
export type TelephonyCommand =
  | { op: 'ringAgent'; callSid: string; identity: string; params: Record<string, string> }
  | { op: 'cancelRing'; callSid: string }
  | { op: 'dial'; callSid: string; number: string }
  | { op: 'hangup'; callSid: string; error?: WireError };

/** The fake. */
export class FakeTelephony implements Telephony {
  readonly commands: TelephonyCommand[] = [];
  /** Identities with a registered device. */
  readonly online = new Set<string>();
  readonly #listeners = new Set<(event: TelephonyEvent) => void>();

  isOnline(identity: string): boolean {
    return this.online.has(identity);
  }

  ringAgent(callSid: string, identity: string, params: Record<string, string>): Promise<number> {
    this.commands.push({ op: 'ringAgent', callSid, identity, params });
    return Promise.resolve(this.online.has(identity) ? 1 : 0);
  }

  cancelRing(callSid: string): void {
    this.commands.push({ op: 'cancelRing', callSid });
  }

  dial(callSid: string, number: string): void {
    this.commands.push({ op: 'dial', callSid, number });
  }

  hangup(callSid: string, error?: WireError): void {
    this.commands.push(error ? { op: 'hangup', callSid, error } : { op: 'hangup', callSid });
  }

  subscribe(listener: (event: TelephonyEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Plays an event as the provider would. */
  emit(event: TelephonyEvent): void {
    if (event.type === 'device.online') this.online.add(event.identity);
    if (event.type === 'device.offline') this.online.delete(event.identity);
    for (const listener of this.#listeners) listener(event);
  }
}
