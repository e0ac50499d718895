/**
 * A telephony provider for tests of the server's flows: it records every command and lets the
 * test play the events a real provider would send. The embedded engine is tested for real in
 * the voice package and end to end.
 */
import type { WireError } from '@leadline/contracts/signalling';
import type { AgentRole, Telephony, TelephonyEvent } from './telephony';

/** One recorded command. */
export type TelephonyCommand =
  | {
      op: 'ringAgent';
      callSid: string;
      identity: string;
      params: Record<string, string>;
      role: AgentRole;
    }
  | { op: 'cancelRing'; callSid: string; identity?: string }
  | { op: 'dial'; callSid: string; number: string; from?: string; participantId: string }
  | { op: 'addCaller'; callSid: string; from: string; to: string; participantId: string }
  | { op: 'hangupPhone'; callSid: string; participantId: string }
  | { op: 'setRole'; callSid: string; identity: string; role: AgentRole }
  | { op: 'removeAgent'; callSid: string; identity: string }
  | { op: 'hold'; callSid: string }
  | { op: 'unhold'; callSid: string }
  | { op: 'hangup'; callSid: string; error?: WireError };

/** The fake. */
export class FakeTelephony implements Telephony {
  readonly commands: TelephonyCommand[] = [];
  /** Identities with a registered device. */
  readonly online = new Set<string>();
  readonly #listeners = new Set<(event: TelephonyEvent) => void>();
  #nextParty = 1;

  isOnline(identity: string): boolean {
    return this.online.has(identity);
  }

  ringAgent(
    callSid: string,
    identity: string,
    params: Record<string, string>,
    options: { role?: AgentRole } = {},
  ): Promise<number> {
    this.commands.push({
      op: 'ringAgent',
      callSid,
      identity,
      params,
      role: options.role ?? 'agent',
    });
    return Promise.resolve(this.online.has(identity) ? 1 : 0);
  }

  cancelRing(callSid: string, identity?: string): void {
    this.commands.push(
      identity === undefined
        ? { op: 'cancelRing', callSid }
        : { op: 'cancelRing', callSid, identity },
    );
  }

  dial(callSid: string, number: string, options: { from?: string } = {}): string {
    const participantId = `${callSid}.phone.${this.#nextParty++}`;
    this.commands.push({ op: 'dial', callSid, number, participantId, ...options });
    return participantId;
  }

  addCaller(callSid: string, from: string, to: string): string {
    const participantId = `${callSid}.caller.${this.#nextParty++}`;
    this.commands.push({ op: 'addCaller', callSid, from, to, participantId });
    return participantId;
  }

  hangupPhone(callSid: string, participantId: string): void {
    this.commands.push({ op: 'hangupPhone', callSid, participantId });
  }

  /** The id of the last phone party dialled into the call (for the test to play its events). */
  lastPhone(callSid: string): string {
    const dialled = this.commands.filter(
      (c): c is Extract<TelephonyCommand, { op: 'dial' | 'addCaller' }> =>
        (c.op === 'dial' || c.op === 'addCaller') && c.callSid === callSid,
    );
    const last = dialled.at(-1);
    if (!last) throw new Error(`nothing was dialled into ${callSid}`);
    return last.participantId;
  }

  setRole(callSid: string, identity: string, role: AgentRole): void {
    this.commands.push({ op: 'setRole', callSid, identity, role });
  }

  removeAgent(callSid: string, identity: string): void {
    this.commands.push({ op: 'removeAgent', callSid, identity });
  }

  hold(callSid: string): void {
    this.commands.push({ op: 'hold', callSid });
  }

  unhold(callSid: string): void {
    this.commands.push({ op: 'unhold', callSid });
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

  /** The commands of one kind. */
  ops<K extends TelephonyCommand['op']>(op: K): Extract<TelephonyCommand, { op: K }>[] {
    return this.commands.filter((c): c is Extract<TelephonyCommand, { op: K }> => c.op === op);
  }
}
