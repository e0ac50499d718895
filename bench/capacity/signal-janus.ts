/**
 * The load generator's signalling adapter for Janus's AudioBridge, over its WebSockets API (one
 * socket and one Janus session per load process, keepalives every 20 s, one plugin handle per
 * leg): a call is a room created for it (`sampling_rate: 8000`, recorded or not as the run says,
 * private, no audio-level events), and its two legs join it with `codec: "pcmu"` and their offer;
 * Janus's answer comes with the `joined` event.
 */
import WebSocket from 'ws';
import { z } from 'zod';
import type { Leg } from './leg';
import type { CallSignalling } from './signalling';

/** The fields of a Janus API message the adapter reads. */
const JanusMessage = z.looseObject({
  janus: z.string(),
  transaction: z.string().optional(),
  sender: z.number().optional(),
  data: z.looseObject({ id: z.number() }).optional(),
  error: z.looseObject({ code: z.number(), reason: z.string() }).optional(),
  plugindata: z
    .looseObject({
      data: z.looseObject({
        audiobridge: z.string().optional(),
        error: z.string().optional(),
        error_code: z.number().optional(),
      }),
    })
    .optional(),
  jsep: z.looseObject({ type: z.string(), sdp: z.string() }).optional(),
});
type JanusMessage = z.infer<typeof JanusMessage>;

export interface JanusOptions {
  /** Whether rooms record their mix (into `recordDir`). */
  record: boolean;
  recordDir: string;
  timeoutMs: number;
}

export class JanusSignalling implements CallSignalling {
  private readonly pending = new Map<
    string,
    { resolve: (m: JanusMessage) => void; reject: (e: Error) => void }
  >();
  /** Events of a handle that nobody waits for yet (`webrtcup`, `hangup`…), by handle. */
  private readonly handleListeners = new Map<number, (m: JanusMessage) => void>();
  private nextTransaction = 1;
  private session = 0;
  private keepalive: NodeJS.Timeout | undefined;

  private constructor(
    private readonly ws: WebSocket,
    private readonly options: JanusOptions,
  ) {
    ws.on('message', (raw: Buffer) => this.onMessage(raw));
    ws.on('close', () => {
      for (const { reject } of this.pending.values()) reject(new Error('janus socket closed'));
      this.pending.clear();
    });
  }

  /** Connects to Janus at `url` (ws://…) and creates the session. */
  static async connect(url: string, options: JanusOptions): Promise<JanusSignalling> {
    const ws = new WebSocket(url, 'janus-protocol');
    await new Promise<void>((resolve, reject) => {
      ws.once('open', resolve);
      ws.once('error', reject);
    });
    const janus = new JanusSignalling(ws, options);
    const created = await janus.request({ janus: 'create' });
    janus.session = created.data!.id;
    janus.keepalive = setInterval(() => {
      janus.request({ janus: 'keepalive', session_id: janus.session }).catch(() => undefined);
    }, 20_000);
    return janus;
  }

  private onMessage(raw: Buffer): void {
    const message = JanusMessage.parse(JSON.parse(raw.toString()));
    if (message.janus === 'ack') return;
    const waiter = message.transaction ? this.pending.get(message.transaction) : undefined;
    if (waiter) {
      this.pending.delete(message.transaction!);
      if (message.janus === 'error') waiter.reject(new Error(`janus: ${message.error?.reason}`));
      else waiter.resolve(message);
      return;
    }
    if (message.sender !== undefined) this.handleListeners.get(message.sender)?.(message);
  }

  /** Sends `body` with a transaction; resolves with its answer (after any `ack`). */
  private request(body: Record<string, unknown>): Promise<JanusMessage> {
    const transaction = `t${this.nextTransaction++}`;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(transaction);
        reject(new Error(`janus: no answer to ${JSON.stringify(body).slice(0, 120)}`));
      }, this.options.timeoutMs);
      this.pending.set(transaction, {
        resolve: (m) => {
          clearTimeout(timer);
          resolve(m);
        },
        reject: (e) => {
          clearTimeout(timer);
          reject(e);
        },
      });
      this.ws.send(JSON.stringify({ ...body, transaction }));
    });
  }

  /** A message to the AudioBridge on `handle`; resolves with the plugin's answer or event. */
  private async plugin(
    handle: number,
    body: Record<string, unknown>,
    jsep?: { type: string; sdp: string },
  ): Promise<JanusMessage> {
    const answer = await this.request({
      janus: 'message',
      session_id: this.session,
      handle_id: handle,
      body,
      ...(jsep ? { jsep } : {}),
    });
    const data = answer.plugindata?.data;
    if (data?.error) throw new Error(`audiobridge ${String(body.request)}: ${data.error}`);
    return answer;
  }

  private async attach(): Promise<number> {
    const attached = await this.request({
      janus: 'attach',
      session_id: this.session,
      plugin: 'janus.plugin.audiobridge',
    });
    return attached.data!.id;
  }

  async setUpCall(call: number, legs: readonly [Leg, Leg]): Promise<void> {
    const room = 1000 + call;
    const handles = await Promise.all(legs.map(() => this.attach()));
    await this.plugin(handles[0]!, {
      request: 'create',
      room,
      description: `bench call ${call}`,
      is_private: true,
      permanent: false,
      sampling_rate: 8000,
      audiolevel_event: false,
      record: this.options.record,
      ...(this.options.record
        ? { record_dir: this.options.recordDir, record_file: `room-${room}.wav` }
        : {}),
    });
    await Promise.all(
      legs.map(async (leg, i) => {
        const handle = handles[i]!;
        const up = new Promise<void>((resolve, reject) => {
          this.handleListeners.set(handle, (m) => {
            if (m.janus === 'webrtcup') resolve();
            else if (m.janus === 'hangup' || m.janus === 'detached')
              reject(new Error(`janus ${m.janus} on leg ${leg.name}`));
          });
        });
        up.catch(() => undefined);
        const offer = await leg.offer();
        const joined = await this.plugin(
          handle,
          { request: 'join', room, display: leg.name, codec: 'pcmu', muted: false },
          { type: 'offer', sdp: offer },
        );
        if (!joined.jsep) throw new Error(`janus joined ${leg.name} without an answer`);
        await leg.peer.setRemoteDescription({ type: 'answer', sdp: joined.jsep.sdp });
        await Promise.all([leg.connected(), up]);
      }),
    );
  }

  async close(): Promise<void> {
    clearInterval(this.keepalive);
    if (this.ws.readyState === WebSocket.OPEN) {
      await this.request({ janus: 'destroy', session_id: this.session }).catch(() => undefined);
      this.ws.close();
    }
  }
}
