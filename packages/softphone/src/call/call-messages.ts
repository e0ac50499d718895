/**
 * A call's user-defined messages (`sendMessage`, `messageSent`, `messageReceived`): checked,
 * sent to the gateway with a voice event sid, and acknowledged by it.
 */
import { InvalidArgumentError, InvalidStateError } from '../errors/errors';
import type { PStreamClient } from '../signalling/pstream-client';

/** A user-defined message on a call (`sendMessage`, `messageReceived`). */
export interface CallMessage {
  content: unknown;
  contentType?: string;
  messageType: string;
  voiceEventSid?: string;
}

/** What a call's messages need of it. */
export interface CallMessagesOptions {
  stream: Pick<PStreamClient, 'isOpen' | 'send' | 'on'>;
  random: () => number;
  /** The call's sid, once the gateway named the call. */
  callSid(): string | undefined;
  /** Whether a frame's call sid is this call's. */
  mine(callsid: string | undefined): boolean;
  /** A message arrived from the gateway. */
  received(message: CallMessage): void;
  /** The gateway acknowledged a message sent. */
  sent(message: CallMessage): void;
}

/** The messages of one call. */
export class CallMessages {
  readonly #o: CallMessagesOptions;
  /** Sent and not yet acknowledged, by voice event sid. */
  readonly #unacknowledged = new Map<string, CallMessage>();

  constructor(options: CallMessagesOptions) {
    this.#o = options;
  }

  /** Sends a message; returns its voice event sid. Throws for a bad message or no signalling. */
  send(message: CallMessage): string {
    const { content, contentType, messageType } = message ?? ({} as CallMessage);
    if (content === undefined || content === null) {
      throw new InvalidArgumentError('`content` is empty');
    }
    if (typeof messageType !== 'string') {
      throw new InvalidArgumentError('`messageType` must be a string.');
    }
    if (!messageType) throw new InvalidArgumentError('`messageType` must be a non-empty string.');
    if (!this.#o.stream.isOpen) {
      throw new InvalidStateError('Could not send CallMessage; Signaling channel is disconnected');
    }
    const callsid = this.#o.callSid();
    if (!callsid) throw new InvalidStateError('Could not send CallMessage; Call has no CallSid');
    let voiceEventSid = 'KX';
    while (voiceEventSid.length < 34) {
      voiceEventSid += Math.floor(this.#o.random() * 16).toString(16);
    }
    this.#unacknowledged.set(voiceEventSid, { content, contentType, messageType, voiceEventSid });
    this.#o.stream.send('message', {
      callsid,
      content,
      contenttype: contentType ?? 'application/json',
      messagetype: messageType,
      voiceeventsid: voiceEventSid,
    });
    return voiceEventSid;
  }

  /** Listens to the gateway's messages and acknowledgements; returns the unsubscribers. */
  listen(): Array<() => void> {
    const s = this.#o.stream;
    return [
      s.on('message', (p) => {
        if (!this.#o.mine(p.callsid)) return;
        this.#o.received({
          content: p.content,
          contentType: p.contenttype,
          messageType: p.messagetype,
          voiceEventSid: p.voiceeventsid,
        });
      }),
      s.on('ack', (p) => {
        const message = this.#unacknowledged.get(p.voiceeventsid);
        if (p.acktype !== 'message' || !this.#o.mine(p.callsid) || !message) return;
        this.#unacknowledged.delete(p.voiceeventsid);
        this.#o.sent(message);
      }),
    ];
  }
}
