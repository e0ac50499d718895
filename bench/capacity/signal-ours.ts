/**
 * The load generator's signalling adapter for our engine: a call is two WebRTC legs in one room.
 * Each leg is a client on its own PStream socket, logged in and registered under an identity of
 * its own (the engine host takes the token as the identity); the engine host's `GET /ring` rings
 * both into the room `CAcap<n>`, each leg answers the engine's offer, and the engine bridges and
 * records them as it does any call (bench/engine/engine-host.ts).
 */
import { PStreamTestClient } from '@leadline/voice/testing';
import type { Leg } from './leg';
import type { CallSignalling } from './signalling';

export class OursSignalling implements CallSignalling {
  private readonly sockets = new Map<string, { socket: PStreamTestClient; callsid?: string }>();

  constructor(
    /** ws://…/signal */
    private readonly url: string,
    /** http://… of the engine host (its `/ring`). */
    private readonly http: string,
    private readonly timeoutMs: number,
  ) {}

  async setUpCall(call: number, legs: readonly [Leg, Leg]): Promise<void> {
    const room = `CAcap${call}`;
    const sockets = await Promise.all(
      legs.map(async (leg) => {
        const socket = await PStreamTestClient.connect(this.url, this.timeoutMs * 2);
        this.sockets.set(leg.name, { socket });
        await socket.login(leg.name, true);
        return socket;
      }),
    );
    const invites = sockets.map((socket) => socket.next('invite'));
    const rung = await fetch(
      `${this.http}/ring?room=${room}&a=${encodeURIComponent(legs[0].name)}&b=${encodeURIComponent(legs[1].name)}`,
    );
    if (!rung.ok) throw new Error(`ring failed: ${rung.status} ${await rung.text()}`);
    await Promise.all(
      legs.map(async (leg, i) => {
        const socket = sockets[i]!;
        const invite = await invites[i]!;
        const callsid = String(invite.callsid);
        this.sockets.set(leg.name, { socket, callsid });
        const sdp = await leg.answer(String(invite.sdp));
        const hungUp = socket.nextOf('hangup', 'cancel').then(
          (frame) =>
            Promise.reject(new Error(`the engine hung up: ${JSON.stringify(frame.payload)}`)),
          () => new Promise<never>(() => undefined),
        );
        hungUp.catch(() => undefined);
        socket.send('answer', { callsid, sdp });
        await Promise.race([leg.connected(), hungUp]);
      }),
    );
  }

  close(): Promise<void> {
    for (const { socket, callsid } of this.sockets.values()) {
      if (callsid) socket.send('hangup', { callsid });
      socket.close();
    }
    this.sockets.clear();
    return Promise.resolve();
  }
}
