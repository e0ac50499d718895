/**
 * A headless agent for tests on the real engine: what the console and its softphone do, on the
 * same wire. HTTP with the session cookie and the CSRF token (spec section 7), the softphone
 * token, the PStream signalling socket (`PStreamTestClient`) registered for incoming calls, and
 * a werift peer per call (`WeriftBrowser`) that plays the agent's tone and keeps what it hears.
 *
 * Frames are sent exactly as our SDK and the official Twilio SDK send them (`docs/signalling.md`):
 * `answer {callsid, sdp}` to accept, `reject {callsid}`, `hangup {callsid}`, and for an outbound
 * call `invite {callsid: <temporary TJS… id>, sdp, twilio: {params: "call_user_id=…&To=…"}}`.
 * The console's Ignore is not a frame: it is `POST /apps/webrtc/{call id}/reject`.
 */
import { eq } from 'drizzle-orm';
import type { CallUserResponse, OutboundCallResponse } from '@leadline/contracts';
import { rmsDbfs } from '@leadline/voice/dsp';
import {
  PStreamTestClient,
  tonesIn,
  WeriftBrowser,
  type ReceivedFrame,
} from '@leadline/voice/testing';
import { users } from '../db/schema';
import { DEMO_PASSWORD } from '../db/seed';
import { requestJson, sessionCookieOf, type HttpResult } from './http-json';
import type { RealLeadline } from './real-engine';
import { pause, REAL_WAIT_MS, waitUntil, WaitTimeoutError } from './wait-until';

/** The agents' audio: PCMU, 8 kHz mono, as the werift peer decodes it. */
const AUDIO_RATE_HZ = 8000;
/** The official SDK and ours keep the socket alive with a `\n` this often. */
const HEARTBEAT_MS = 5_000;
/** No new audio for this long means the media stopped. */
const QUIET_MS = 300;

/** Options of {@link AgentClient.login}. */
export interface AgentClientOptions {
  /** The tone the agent's "microphone" plays on every call; default 1000 Hz. */
  toneHz?: number;
  /** Default: the demo password. */
  password?: string;
  /** How long login and each wait of the client take at most by default. */
  timeoutMs?: number;
}

/** An incoming call, as the gateway's `invite` frame carries it. */
export interface Invite {
  /** The call's wire sid (the call sid for the first agent of a call). */
  callsid: string;
  /** The engine's offer. */
  sdp: string;
  /** `CallSid`, `From` (`client:<call user id>` for a lead), `To`, … */
  parameters: Record<string, string>;
  /** The reconnect token of the call, if the gateway sent one. */
  reconnect: string | undefined;
  /** The call user id parsed from `From: client:<id>`, if it is one. */
  callUserId: number | undefined;
}

/** The agent's call in progress: its wire sid and the werift peer carrying its audio. */
export interface AgentCall {
  callSid: string;
  direction: 'incoming' | 'outgoing';
  peer: WeriftBrowser;
  /** The call user the call belongs to, when known. */
  callUserId: number | undefined;
}

/** An outbound call placed and answered: the call and the server's answer to the POST. */
export interface PlacedCall extends AgentCall {
  response: OutboundCallResponse;
}

/** The engine refused or ended an outbound call before it was answered (`hangup {error}`). */
export class OutboundCallFailedError extends Error {
  override name = 'OutboundCallFailedError';
  constructor(
    message: string,
    /** The `hangup` frame's payload. */
    readonly payload: Record<string, unknown>,
  ) {
    super(message);
  }
}

/**
 * The gateway ended an outbound call with a `hangup` naming a sid the client was never told (no
 * `ringing` or `answer` gave it): the SDKs ignore such a frame and the call would hang in
 * dialing. Raised instead of a plain timeout so the test says what went wrong on the wire.
 */
export class UnmatchedHangupError extends Error {
  override name = 'UnmatchedHangupError';
  constructor(
    message: string,
    /** The unmatched `hangup` frame's payload. */
    readonly payload: Record<string, unknown>,
  ) {
    super(message);
  }
}

let outboundCounter = 0;

/** Rejects with a `WaitTimeoutError` naming `what` if `promise` takes longer than `timeoutMs`. */
async function within<T>(promise: Promise<T>, timeoutMs: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new WaitTimeoutError(`waited ${timeoutMs} ms for ${what}`)),
      timeoutMs,
    );
  });
  try {
    return await Promise.race([promise, timedOut]);
  } finally {
    clearTimeout(timer);
  }
}

/** A logged-in agent with its softphone registered. */
export class AgentClient {
  /** The werift peers of the calls not hung up yet (closed with the client). */
  readonly #peers: WeriftBrowser[] = [];
  readonly #heartbeat: NodeJS.Timeout;
  #call: AgentCall | undefined;
  #closing: Promise<void> | undefined;

  private constructor(
    /** The product the agent works in. */
    readonly product: RealLeadline,
    readonly email: string,
    readonly userId: number,
    readonly accountId: number,
    /** `leadline_session=…`, sent with every request. */
    readonly cookie: string,
    /** The session's CSRF token (`X-CSRF-TOKEN`). */
    readonly csrf: string,
    /** The softphone token the socket registered with. */
    readonly token: string,
    /** The signalling socket; its `frames` are what the gateway sent and nobody took yet. */
    readonly signal: PStreamTestClient,
    readonly toneHz: number,
    /** The default bound of every wait. */
    readonly timeoutMs: number,
  ) {
    this.#heartbeat = setInterval(() => {
      if (signal.ws.readyState === signal.ws.OPEN) signal.ws.send('\n');
    }, HEARTBEAT_MS);
    this.#heartbeat.unref();
  }

  /**
   * Logs `email` in over HTTP as the console does (`POST /api/v1/user/login`, then
   * `GET /api/v1/user` for the CSRF token), fetches a softphone token (`GET /api/v1/twilio/token2`),
   * opens the signalling socket and registers (`listen`, `register` → `ready`). Resolves once the
   * server has the user online in the app, so a lead posted next rings this agent.
   */
  static async login(
    product: RealLeadline,
    email: string,
    options: AgentClientOptions = {},
  ): Promise<AgentClient> {
    const timeoutMs = options.timeoutMs ?? REAL_WAIT_MS;
    const base = product.url;
    const loggedIn = await requestJson('POST', `${base}/api/v1/user/login`, undefined, {
      email,
      password: options.password ?? DEMO_PASSWORD,
    });
    if (loggedIn.status !== 200) {
      throw new Error(
        `login of ${email} failed: ${loggedIn.status} ${JSON.stringify(loggedIn.body)}`,
      );
    }
    const cookie = sessionCookieOf(loggedIn.headers);
    const me = await requestJson<{ user: { id: number; account_id: number }; csrf_token: string }>(
      'GET',
      `${base}/api/v1/user?time=${Date.now()}`,
      { cookie },
    );
    if (me.status !== 200) throw new Error(`GET /api/v1/user failed: ${me.status}`);
    const issued = await requestJson<{ token: string }>(
      'GET',
      `${base}/api/v1/twilio/token2?time=${Date.now()}`,
      { cookie },
    );
    if (issued.status !== 200)
      throw new Error(`GET /api/v1/twilio/token2 failed: ${issued.status}`);

    const signal = await PStreamTestClient.connect(product.signalUrl, timeoutMs);
    const agent = new AgentClient(
      product,
      email,
      me.body.user.id,
      me.body.user.account_id,
      cookie,
      me.body.csrf_token,
      issued.body.token,
      signal,
      options.toneHz ?? 1000,
      timeoutMs,
    );
    product.addCleanup(() => agent.close());
    try {
      await signal.login(agent.token);
      // `device.online` was emitted (and queued by the flows) before `ready` was sent.
      await product.flows.idle();
      await waitUntil(
        async () => {
          const [row] = await product.db
            .select({ online: users.isOnlineApp })
            .from(users)
            .where(eq(users.id, agent.userId));
          return row?.online ? true : undefined;
        },
        `${email} to be online in the app`,
        timeoutMs,
      );
    } catch (error) {
      await agent.close();
      throw error;
    }
    return agent;
  }

  /** The agent's identity on the wire (its user id). */
  get identity(): string {
    return String(this.userId);
  }

  /** The call in progress (accepted or placed, not hung up here), if any. */
  get call(): AgentCall | undefined {
    return this.#call;
  }

  /** An authenticated request (cookie, and `X-CSRF-TOKEN` on every method but GET/HEAD). */
  api<T = unknown>(method: string, path: string, body?: unknown): Promise<HttpResult<T>> {
    const headers: Record<string, string> = { cookie: this.cookie };
    if (method !== 'GET' && method !== 'HEAD') headers['x-csrf-token'] = this.csrf;
    return requestJson<T>(method, `${this.product.url}${path}`, headers, body);
  }

  /**
   * Takes the first frame from the gateway (received or still to come) that `accept` wants;
   * frames it does not want stay for later waits.
   */
  async nextFrame(
    accept: (frame: ReceivedFrame) => boolean,
    what: string,
    timeoutMs = this.timeoutMs,
  ): Promise<ReceivedFrame> {
    const { frames, ws } = this.signal;
    const take = (): ReceivedFrame | undefined => {
      const index = frames.findIndex(accept);
      return index >= 0 ? frames.splice(index, 1)[0] : undefined;
    };
    const now = take();
    if (now) return now;
    return new Promise((resolve, reject) => {
      // Registered after the test client's own listener, so the frame is in `frames` by now.
      const onMessage = (): void => {
        const frame = take();
        if (!frame) return;
        done();
        resolve(frame);
      };
      const onClose = (): void => {
        done();
        reject(new Error(`the signalling socket of ${this.email} closed waiting for ${what}`));
      };
      const timer = setTimeout(() => {
        done();
        const seen = JSON.stringify(frames.map((frame) => frame.type));
        reject(new WaitTimeoutError(`no ${what} for ${this.email} in ${timeoutMs} ms; ${seen}`));
      }, timeoutMs);
      const done = (): void => {
        clearTimeout(timer);
        ws.off('message', onMessage);
        ws.off('close', onClose);
      };
      ws.on('message', onMessage);
      ws.on('close', onClose);
    });
  }

  /** The next incoming call (`invite` frame). */
  async nextInvite(timeoutMs = this.timeoutMs): Promise<Invite> {
    const { payload } = await this.nextFrame((f) => f.type === 'invite', 'invite', timeoutMs);
    const parameters = (payload.parameters ?? {}) as Record<string, string>;
    const from = /^client:(\d+)$/.exec(parameters.From ?? '');
    return {
      callsid: String(payload.callsid),
      sdp: String(payload.sdp),
      parameters,
      reconnect: typeof payload.reconnect === 'string' ? payload.reconnect : undefined,
      callUserId: from ? Number(from[1]) : undefined,
    };
  }

  /**
   * Accepts an incoming call as the SDK's `call.accept()` does: a new peer (the agent's tone as
   * its microphone) answers the offer and `answer {callsid, sdp}` is sent. Resolves once ICE and
   * DTLS are up.
   */
  async accept(invite: Invite, timeoutMs = this.timeoutMs): Promise<AgentCall> {
    const call = await this.answer(invite);
    await within(call.peer.connected(), timeoutMs, `the media of ${invite.callsid} to connect`);
    return call;
  }

  /**
   * Sends the answer as `accept` does, without waiting for the media: for a call the server may
   * end as soon as it is answered (`waitForHangup` then waits for that end).
   */
  async answer(invite: Invite): Promise<AgentCall> {
    const peer = this.#newPeer();
    const sdp = await peer.answer(invite.sdp);
    this.signal.send('answer', { callsid: invite.callsid, sdp });
    this.#call = {
      callSid: invite.callsid,
      direction: 'incoming',
      peer,
      callUserId: invite.callUserId,
    };
    return this.#call;
  }

  /** Rejects an incoming call as the SDK's `call.reject()` does: `reject {callsid}`. */
  reject(invite: Invite): void {
    this.signal.send('reject', { callsid: invite.callsid });
  }

  /**
   * The console's Ignore: the SDK's `call.ignore()` sends nothing; the console posts
   * `POST /apps/webrtc/{call id}/reject`, the call id read from `GET /api/v1/callusers/{id}`.
   */
  async ignore(invite: Invite): Promise<HttpResult> {
    if (invite.callUserId === undefined) {
      throw new Error(`the invite ${invite.callsid} names no call user (From: client:<id>)`);
    }
    const callUser = await this.api<CallUserResponse>(
      'GET',
      `/api/v1/callusers/${invite.callUserId}`,
    );
    if (callUser.status !== 200) {
      throw new Error(`GET /api/v1/callusers/${invite.callUserId} failed: ${callUser.status}`);
    }
    return this.api('POST', `/apps/webrtc/${callUser.body.call.id}/reject`);
  }

  /** Hangs up the call in progress as the SDK's `call.disconnect()` does: `hangup {callsid}`. */
  async hangup(): Promise<void> {
    const call = this.#requireCall('hang up');
    this.signal.send('hangup', { callsid: call.callSid });
    this.#call = undefined;
    await this.#closePeer(call.peer);
  }

  /**
   * Waits for the gateway to end the call in progress (`hangup`, e.g. the lead hung up, with
   * `error` when it failed); the peer closes as the SDK's does. Resolves with the frame's payload.
   */
  async waitForHangup(timeoutMs = this.timeoutMs): Promise<Record<string, unknown>> {
    const call = this.#requireCall('wait for a hangup');
    const frame = await this.nextFrame(
      (f) => f.type === 'hangup' && f.payload.callsid === call.callSid,
      `hangup of ${call.callSid}`,
      timeoutMs,
    );
    if (this.#call === call) this.#call = undefined;
    await this.#closePeer(call.peer);
    return frame.payload;
  }

  /**
   * New Call as the console places it: `POST /api/v1/calls/twilio/outbound` (the agent's id and
   * `interface: desktop` unless `body` says otherwise), then an `invite` with a werift offer and
   * the connect params `call_user_id` and `To` of the answer. Resolves when the far end answered
   * (`answer`) and the media is up; rejects with `OutboundCallFailedError` on a `hangup` of the
   * call, and with `UnmatchedHangupError` when the only hangup names a sid the client never got.
   */
  async placeOutbound(
    body: Record<string, unknown>,
    timeoutMs = this.timeoutMs,
  ): Promise<PlacedCall> {
    const posted = await this.api<OutboundCallResponse>('POST', '/api/v1/calls/twilio/outbound', {
      agent_id: this.userId,
      interface: 'desktop',
      ...body,
    });
    if (posted.status !== 200) {
      throw new Error(
        `the outbound call was refused: ${posted.status} ${JSON.stringify(posted.body)}`,
      );
    }
    const response = posted.body;
    const call = await this.connect(
      { call_user_id: String(response.call_user_id), To: response.call.phone_number },
      timeoutMs,
      response.call_user_id,
    );
    return { ...call, response };
  }

  /**
   * Places an outgoing call with the connect params `params`, as the SDKs'
   * `device.connect({ params })` does: an `invite` with a werift offer and the params. Resolves
   * when the far end answered (`answer`) and the media is up; rejects with
   * `OutboundCallFailedError` on a `hangup` of the call, and with `UnmatchedHangupError` when the
   * only hangup names a sid the client never got.
   */
  async connect(
    params: Record<string, string>,
    timeoutMs = this.timeoutMs,
    callUserId?: number,
  ): Promise<AgentCall> {
    const peer = this.#newPeer();
    const offer = await peer.createOffer();
    // The SDK names an outgoing call with a temporary id until the gateway gives the real sid.
    const temporarySid = `TJSxxxxxxxx-${Date.now().toString(16)}-${++outboundCounter}`;
    this.signal.send('invite', {
      callsid: temporarySid,
      sdp: offer,
      twilio: { params: new URLSearchParams(params).toString() },
    });
    let callSid: string | undefined;
    let answerApplied = false;
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      // Matched as the SDKs match them: a frame names the call by the temporary id or by the
      // sid that `ringing`/`answer` gave; a `hangup` naming anything else is not this call's.
      const frame = await this.nextFrame(
        (f) =>
          (f.type === 'hangup' &&
            (f.payload.callsid === temporarySid || f.payload.callsid === callSid)) ||
          ((f.type === 'ringing' || f.type === 'answer') &&
            (callSid === undefined || f.payload.callsid === callSid)),
        `ringing, answer or hangup of the outbound call ${callSid ?? temporarySid}`,
        Math.max(1, deadline - Date.now()),
      ).catch((error: unknown) => {
        throw this.#explainUnmatchedHangup(error, callSid ?? temporarySid);
      });
      if (frame.type === 'hangup') {
        await this.#closePeer(peer);
        throw new OutboundCallFailedError(
          `the outbound call ended before it was answered: ${JSON.stringify(frame.payload)}`,
          frame.payload,
        );
      }
      callSid = String(frame.payload.callsid);
      // `ringing` carries the engine's answer as early media; `answer` repeats it.
      if (!answerApplied && typeof frame.payload.sdp === 'string') {
        await peer.acceptAnswer(frame.payload.sdp);
        answerApplied = true;
      }
      if (frame.type === 'answer') break;
    }
    this.#call = { callSid, direction: 'outgoing', peer, callUserId };
    await within(
      peer.connected(),
      Math.max(1, deadline - Date.now()),
      `the media of ${callSid} to connect`,
    );
    return this.#call;
  }

  /** Waits until the current call's peer has heard `seconds` more audio; returns that audio. */
  async listen(seconds: number, timeoutMs = this.timeoutMs): Promise<Int16Array> {
    const { peer } = this.#requireCall('listen');
    const from = peer.heardSamples;
    const wanted = Math.round(seconds * AUDIO_RATE_HZ);
    await waitUntil(
      () => (peer.heardSamples - from >= wanted ? true : undefined),
      `${this.email} to hear ${seconds} s of audio`,
      timeoutMs,
      () => `heard ${(peer.heardSamples - from) / AUDIO_RATE_HZ} s`,
    );
    return peer.heard(from).subarray(0, wanted);
  }

  /**
   * Whether the next `seconds` of audio the agent hears carry `toneHz` (at least `minShare` of
   * their power; the default 0.5 means mostly that tone).
   */
  async hears(toneHz: number, seconds = 1, minShare = 0.5): Promise<boolean> {
    return tonesIn(await this.listen(seconds), [toneHz], minShare).length === 1;
  }

  /** Which of `tonesHz` the next `seconds` of audio carry (each at least `minShare`). */
  async tonesHeard(tonesHz: readonly number[], seconds = 1, minShare = 0.1): Promise<number[]> {
    return tonesIn(await this.listen(seconds), tonesHz, minShare);
  }

  /**
   * Whether the next `seconds` of audio are silence (under `maxDbfs`): the media flows but
   * nobody is heard.
   */
  async hearsSilence(seconds = 1, maxDbfs = -45): Promise<boolean> {
    return rmsDbfs(await this.listen(seconds)) < maxDbfs;
  }

  /** Resolves once the current call's peer receives no more audio (the engine stopped sending). */
  async heardNothingMore(timeoutMs = this.timeoutMs): Promise<void> {
    const { peer } = this.#requireCall('wait for the audio to stop');
    let last = peer.heardSamples;
    let quietSince = Date.now();
    await waitUntil(
      async () => {
        await pause(QUIET_MS / 3);
        if (peer.heardSamples !== last) {
          last = peer.heardSamples;
          quietSince = Date.now();
        }
        return Date.now() - quietSince >= QUIET_MS ? true : undefined;
      },
      `${this.email}'s audio to stop`,
      timeoutMs,
    );
  }

  /** Closes the peers and the signalling socket (as a closed browser tab would); no hangup. */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      clearInterval(this.#heartbeat);
      this.#call = undefined;
      await Promise.allSettled(this.#peers.map((peer) => peer.close()));
      const { ws } = this.signal;
      if (ws.readyState === ws.CLOSED) return;
      const closed = new Promise<void>((resolve) => ws.once('close', () => resolve()));
      this.signal.close();
      await within(closed, this.timeoutMs, `the socket of ${this.email} to close`).catch(() =>
        ws.terminate(),
      );
    })();
    return this.#closing;
  }

  /**
   * A wait for an outbound call's frames that ran out while a `hangup` for another sid sat
   * unread: the SDKs would ignore that hangup too (they know the call only by `knownSid`), so
   * say so rather than just "timed out".
   */
  #explainUnmatchedHangup(error: unknown, knownSid: string): unknown {
    const stray = this.signal.frames.find((f) => f.type === 'hangup');
    if (!(error instanceof WaitTimeoutError) || !stray) return error;
    return new UnmatchedHangupError(
      `the gateway sent ${JSON.stringify(stray.payload)}, but the call is known on the wire ` +
        `only as ${knownSid}: an SDK would not match that hangup and would keep dialing`,
      stray.payload,
    );
  }

  /**
   * Closes a call's peer and forgets it: a peer keeps everything it heard, so an agent taking
   * call after call (the soak) would otherwise hold every call's audio until it closes.
   */
  async #closePeer(peer: WeriftBrowser): Promise<void> {
    await peer.close();
    const index = this.#peers.indexOf(peer);
    if (index >= 0) this.#peers.splice(index, 1);
  }

  #newPeer(): WeriftBrowser {
    const peer = new WeriftBrowser({ toneHz: this.toneHz, iceAddresses: ['127.0.0.1'] });
    this.#peers.push(peer);
    return peer;
  }

  #requireCall(action: string): AgentCall {
    if (!this.#call) throw new Error(`${this.email} has no call to ${action}`);
    return this.#call;
  }
}
