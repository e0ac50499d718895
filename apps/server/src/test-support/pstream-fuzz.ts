/**
 * Fuzzing the PStream 1.6 gateway (`docs/signalling.md`): the frames fast-check generates, what
 * the gateway must answer to each (the oracle), and a client socket that sends them in batches and
 * checks every answer.
 *
 * The oracle is the protocol as documented: a frame that does not parse as a client frame of the
 * contract (`ClientMessage`), or names another version, gets `error {code: 31100}`; a bad token
 * 31204, an expired one 31205; a call frame before a good `listen` 31204; a call frame naming no
 * call of the socket 31404 (`hangup` and `reject` of such a call are no error: nothing); an
 * `invite` that cannot be placed gets `hangup {callsid, error}`; a binary frame 31100; a frame over
 * 64 KB closes the socket with 1009, a text frame that is not UTF-8 with 1007. Whether a frame
 * parses is asked of the contract's schema, which the SDKs share; everything else is the doc's.
 */
import fc from 'fast-check';
import { WebSocket } from 'ws';
import { AUTH_DEADLINE_MS } from '@leadline/voice';
import {
  ClientMessage,
  encodeFrame,
  GatewayMessage,
  PSTREAM_VERSION,
  SignallingErrorCode,
} from '@leadline/contracts/signalling';
import { REAL_WAIT_MS, WaitTimeoutError } from './wait-until';

/** `docs/signalling.md`: frames over 64 KB are refused (the WebSocket closes with 1009). */
export const MAX_FRAME_BYTES = 64 * 1024;
/** WebSocket close codes (RFC 6455 §7.4.1) the gateway may close a fuzzer's socket with. */
export const CLOSE_CODE = { tooBig: 1009, notUtf8: 1007 } as const;

/** What the generated frames may refer to, known only once the product runs. */
export interface FuzzContext {
  /** The wire sid of the live call the fuzzers aim at (another user's). */
  liveCallSid: string;
  /** That call's reconnect token (its owner's; worthless to anyone else). */
  liveReconnect: string;
  /** Real access tokens the fuzzers may present, with the identity each names. */
  realTokens: ReadonlyArray<{ token: string; identity: string }>;
  /** A token the server signed that has expired (31205). */
  expiredToken: string;
  /** A well-formed token signed with another secret (31204). */
  forgedToken: string;
}

/** One generated frame: text built once the context is known, binary, or one that closes. */
export type FuzzFrame =
  | { kind: 'text'; build: (ctx: FuzzContext) => string }
  | { kind: 'binary'; bytes: Uint8Array }
  /** Over the size limit (`bytes` long): the socket must close with 1009. */
  | { kind: 'oversize'; bytes: number; binary: boolean }
  /** A text frame whose bytes are not UTF-8: the socket must close with 1007. */
  | { kind: 'not-utf8'; bytes: Uint8Array };

type Build = (ctx: FuzzContext) => unknown;
const lit = (arbitrary: fc.Arbitrary<unknown>): fc.Arbitrary<Build> =>
  arbitrary.map((value) => () => value);
const from = (build: Build): fc.Arbitrary<Build> => fc.constant(build);

const hex = (length: number): fc.Arbitrary<string> =>
  fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), minLength: length, maxLength: length });

/** Values of the wrong type or shape for any field. */
const odd: fc.Arbitrary<unknown> = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }),
  fc.constantFrom(
    '',
    ' ',
    0,
    -1,
    Number.MAX_VALUE,
    0.5,
    null,
    true,
    [],
    {},
    '__proto__',
    'constructor',
  ),
  // Left out of the JSON: a missing field.
  fc.constant(undefined),
);

const callsid = fc.oneof(
  { weight: 5, arbitrary: from((ctx) => ctx.liveCallSid) },
  { weight: 2, arbitrary: lit(hex(32).map((h) => `CA${h}`)) },
  { weight: 1, arbitrary: lit(fc.constantFrom('TJSxxxxxxxx-1', 'CA', 'sync-1', 'null')) },
  { weight: 1, arbitrary: lit(fc.string({ unit: 'binary', maxLength: 40 })) },
  { weight: 1, arbitrary: lit(odd) },
);

const jwtLike = fc
  .tuple(fc.base64String({ maxLength: 60 }), fc.base64String({ maxLength: 200 }), hex(43))
  .map((parts) => parts.join('.'));
const token = fc.oneof(
  {
    weight: 2,
    arbitrary: fc.nat().map(
      (i): Build =>
        (ctx) =>
          ctx.realTokens[i % ctx.realTokens.length]!.token,
    ),
  },
  { weight: 1, arbitrary: from((ctx) => ctx.expiredToken) },
  { weight: 1, arbitrary: from((ctx) => ctx.forgedToken) },
  { weight: 1, arbitrary: from((ctx) => ctx.liveReconnect) },
  { weight: 1, arbitrary: lit(jwtLike) },
  { weight: 2, arbitrary: lit(fc.string({ maxLength: 300 })) },
  { weight: 1, arbitrary: lit(odd) },
);

/** Offers the engine cannot use (none is a complete offer, so no call is ever placed). */
const sdp = lit(
  fc.oneof(
    { weight: 3, arbitrary: fc.string({ minLength: 1, maxLength: 200 }) },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        'v=0',
        'v=0\r\no=- 0 0 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\nm=audio 9 UDP/TLS/RTP/SAVPF 0\r\n',
        'v=0\r\nm=video 0 RTP/AVP 96\r\n',
        // Large but under the limit: the frame is handled like any other.
        'a=x'.repeat(15_000),
      ),
    },
    { weight: 1, arbitrary: odd },
  ),
);

/** Connect params: odd ones, and ones the server accepts (a new call that the bad SDP fails). */
const params = lit(
  fc.oneof(
    { weight: 3, arbitrary: fc.string({ maxLength: 80 }) },
    {
      weight: 3,
      arbitrary: fc.constantFrom(
        '',
        'To=abc',
        'To=',
        'call_user_id=1',
        'call_user_id=x&To=%2B15550100042',
        'network_test=nt-1',
        'network_test=',
        '%%%',
      ),
    },
    { weight: 1, arbitrary: fc.constantFrom('To=%2B15550100042', 'To=%2B15550199001') },
    { weight: 1, arbitrary: odd },
  ),
);

const reconnect = fc.oneof(
  { weight: 3, arbitrary: from((ctx) => ctx.liveReconnect) },
  { weight: 1, arbitrary: lit(fc.base64String({ maxLength: 40 })) },
  { weight: 1, arbitrary: lit(odd) },
);

const optional = (arbitrary: fc.Arbitrary<Build>): fc.Arbitrary<Build> =>
  fc.oneof(
    arbitrary,
    from(() => undefined),
  );

/** Payload fields of every client frame type, each from good, someone else's and odd values. */
const PAYLOADS: Record<ClientMessage['type'], fc.Arbitrary<Record<string, Build>>> = {
  listen: fc.record({
    token,
    browserinfo: optional(lit(fc.oneof(fc.constant({}), odd))),
    reconnectTimeout: optional(lit(fc.oneof(fc.integer(), odd))),
  }),
  register: fc.record({
    media: optional(
      lit(fc.oneof(fc.record({ audio: fc.boolean() }), fc.record({ audio: odd }), odd)),
    ),
  }),
  invite: fc.record({
    callsid,
    sdp,
    twilio: optional(params.map((p): Build => (ctx) => ({ params: p(ctx) }))),
    reconnect: optional(reconnect),
  }),
  answer: fc.record({ callsid, sdp }),
  reinvite: fc.record({ callsid, sdp }),
  dtmf: fc.record({
    callsid,
    dtmf: lit(
      fc.oneof(
        { weight: 3, arbitrary: fc.string({ minLength: 1, maxLength: 12 }) },
        { weight: 2, arbitrary: fc.constantFrom('1', '#', '*', 'w', '') },
        { weight: 1, arbitrary: odd },
      ),
    ),
  }),
  hangup: fc.record({ callsid, message: optional(lit(fc.oneof(fc.string(), odd))) }),
  reject: fc.record({ callsid }),
  message: fc.record({
    callsid,
    content: lit(fc.jsonValue({ maxDepth: 3 })),
    contenttype: optional(lit(fc.oneof(fc.constant('application/json'), odd))),
    messagetype: lit(
      fc.oneof(
        { weight: 3, arbitrary: fc.constantFrom('user-defined-message', 'x') },
        { weight: 1, arbitrary: fc.oneof(fc.string(), odd) },
      ),
    ),
    voiceeventsid: lit(
      fc.oneof(
        { weight: 3, arbitrary: fc.uuid() },
        { weight: 1, arbitrary: fc.oneof(fc.string(), odd) },
      ),
    ),
  }),
};
const TYPES = Object.keys(PAYLOADS) as Array<ClientMessage['type']>;

/** What may be done to a payload on top: nothing mostly; drop, spoil or add a field. */
const mutation = fc.oneof(
  { weight: 12, arbitrary: fc.constant((p: Record<string, unknown>) => p) },
  {
    weight: 1,
    arbitrary: fc.nat().map((i) => (p: Record<string, unknown>) => {
      const keys = Object.keys(p);
      if (keys.length > 0) delete p[keys[i % keys.length]!];
      return p;
    }),
  },
  {
    weight: 1,
    arbitrary: fc.tuple(fc.nat(), odd).map(([i, value]) => (p: Record<string, unknown>) => {
      const keys = Object.keys(p);
      if (keys.length > 0) p[keys[i % keys.length]!] = value;
      return p;
    }),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.string({ maxLength: 10 }), odd)
      .map(([key, value]) => (p: Record<string, unknown>) => ({ ...p, [key]: value })),
  },
);

const version = fc.oneof(
  { weight: 16, arbitrary: fc.constant<unknown>(PSTREAM_VERSION) },
  { weight: 1, arbitrary: fc.constantFrom<unknown>('1.5', '2.0', '', '1.6 ', 1.6, undefined) },
  { weight: 1, arbitrary: odd },
);

const typeName = fc.oneof(
  { weight: 12, arbitrary: fc.constantFrom<string>(...TYPES) },
  // Gateway-only types, wrong case, unknown ones.
  {
    weight: 1,
    arbitrary: fc.constantFrom('connected', 'ready', 'ack', 'cancel', 'Listen', 'ping', ''),
  },
);
const isType = (type: string): type is ClientMessage['type'] =>
  (TYPES as readonly string[]).includes(type);

/** A frame of one of the client types (or a wrong type name with some payload), as JSON text. */
const typedFrame = fc
  .tuple(typeName, fc.constantFrom(...TYPES), version, mutation)
  .chain(([type, other, v, mutate]) =>
    PAYLOADS[isType(type) ? type : other].map((payload) => (ctx: FuzzContext) => {
      const built: Record<string, unknown> = {};
      for (const [key, field] of Object.entries(payload)) built[key] = field(ctx);
      return JSON.stringify({ type, version: v, payload: mutate(built) });
    }),
  );

/** Every kind of frame, in the mix the fuzz sends. */
export const fuzzFrame: fc.Arbitrary<FuzzFrame> = fc.oneof(
  { weight: 220, arbitrary: typedFrame.map((build): FuzzFrame => ({ kind: 'text', build })) },
  // A typed frame cut short: not JSON any more (or, rarely, still JSON of another shape).
  {
    weight: 18,
    arbitrary: fc.tuple(typedFrame, fc.nat()).map(([build, cut]): FuzzFrame => ({
      kind: 'text',
      build: (ctx) => {
        const text = build(ctx);
        return text.slice(0, cut % Math.max(1, text.length));
      },
    })),
  },
  {
    weight: 18,
    arbitrary: fc
      .jsonValue({ maxDepth: 3 })
      .map((value): FuzzFrame => ({ kind: 'text', build: () => JSON.stringify(value) ?? 'null' })),
  },
  {
    weight: 18,
    arbitrary: fc
      .string({ unit: 'binary', maxLength: 200 })
      .map((text): FuzzFrame => ({ kind: 'text', build: () => text })),
  },
  // Heartbeats and near-heartbeats.
  {
    weight: 12,
    arbitrary: fc
      .constantFrom('\n', '\n', '\n\n', ' \n', '', 'null', '{}', '[]', '"listen"')
      .map((text): FuzzFrame => ({ kind: 'text', build: () => text })),
  },
  {
    weight: 18,
    arbitrary: fc
      .uint8Array({ maxLength: 300 })
      .map((bytes): FuzzFrame => ({ kind: 'binary', bytes })),
  },
  {
    weight: 1,
    arbitrary: fc
      .record({
        bytes: fc.integer({ min: MAX_FRAME_BYTES + 1, max: MAX_FRAME_BYTES + 40_000 }),
        binary: fc.boolean(),
      })
      .map((o): FuzzFrame => ({ kind: 'oversize', ...o })),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.uint8Array({ maxLength: 40 }), fc.constantFrom(0xc3, 0xff, 0xed, 0xf8, 0x80))
      .map(([bytes, bad]): FuzzFrame => ({
        kind: 'not-utf8',
        bytes: Uint8Array.from([...bytes, bad, 0x28]),
      })),
  },
);

// ------------------------------------------------------------------------------------ oracle

/** The answer a frame must get, as a comparable signature (`type|code|callsid`). */
type Expected = string;

const signature = (type: string, code?: unknown, callsid?: unknown): Expected =>
  JSON.stringify([type, code ?? null, callsid ?? null]);

/** The signature of a frame the gateway sent (a hangup's code is not predicted: left out). */
function signatureOf(frame: GatewayMessage): Expected {
  switch (frame.type) {
    case 'error':
      return signature('error', frame.payload.error.code, frame.payload.callsid);
    case 'hangup':
      return signature('hangup', null, frame.payload.callsid);
    default:
      return signature(frame.type);
  }
}

/**
 * What the gateway answers to `text` on a socket authenticated as `identity` (null: not yet),
 * and the socket's identity after it. No answer: `undefined`.
 */
export function expectedAnswer(
  text: string,
  identity: string | null,
  ctx: FuzzContext,
): { answer: Expected | undefined; identity: string | null } {
  const badRequest = { answer: signature('error', SignallingErrorCode.BadRequest), identity };
  // The heartbeat; nothing to answer.
  if (text === '\n') return { answer: undefined, identity };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return badRequest;
  }
  const parsed = ClientMessage.safeParse(json);
  if (!parsed.success || parsed.data.version !== PSTREAM_VERSION) return badRequest;
  const frame = parsed.data;
  if (frame.type === 'listen') {
    const real = ctx.realTokens.find((t) => t.token === frame.payload.token);
    if (real) return { answer: signature('connected'), identity: real.identity };
    const code =
      frame.payload.token === ctx.expiredToken
        ? SignallingErrorCode.AccessTokenExpired
        : SignallingErrorCode.AccessTokenInvalid;
    return { answer: signature('error', code), identity };
  }
  if (identity === null) {
    const callsid = 'callsid' in frame.payload ? frame.payload.callsid : undefined;
    return {
      answer: signature('error', SignallingErrorCode.AccessTokenInvalid, callsid),
      identity,
    };
  }
  switch (frame.type) {
    case 'register':
      return {
        answer: signature(frame.payload.media?.audio === false ? 'offline' : 'ready'),
        identity,
      };
    // The fuzzers own no call and may place none: every invite is refused with a hangup.
    case 'invite':
      return { answer: signature('hangup', null, frame.payload.callsid), identity };
    // Hanging up or rejecting a call that is not the socket's is not an error.
    case 'hangup':
    case 'reject':
      return { answer: undefined, identity };
    default:
      return {
        answer: signature('error', SignallingErrorCode.CallNotFound, frame.payload.callsid),
        identity,
      };
  }
}

// ------------------------------------------------------------------------------------ socket

/** Who a fuzzer socket is when it opens: a token to `listen` with (or none) and registered or not. */
export interface FuzzerRole {
  name: string;
  token: { token: string; identity: string } | null;
  register: boolean;
}

/** What a fuzzer saw: counts for the report and every broken expectation. */
export interface FuzzTally {
  /** Generated frames sent (not the batches' sync frames). */
  sent: number;
  /** Answers to generated frames by kind, e.g. `error 31100`, `connected`, `hangup 31404`. */
  answers: Map<string, number>;
  /** Closes by code, e.g. 1009. */
  closes: Map<number, number>;
  /** Broken expectations, each saying what was sent and what came back. */
  problems: string[];
}

/** How many generated frames a fuzzer sends before it checks the answers. */
const BATCH = 10;

const count = <K>(map: Map<K, number>, key: K): void => {
  map.set(key, (map.get(key) ?? 0) + 1);
};

/**
 * One fuzzer socket. It sends frames in batches without waiting for each answer; after a batch
 * it sends a sync frame (a `dtmf` for a call that does not exist, which the gateway answers in
 * order) and, once that answer is in, compares the answers with the oracle's as multisets (a
 * binary frame's answer does not wait for the text frames before it). A frame that must close the
 * socket is sent alone after a sync; the fuzzer then opens a fresh socket as the same role.
 */
export class PStreamFuzzer {
  #ws: WebSocket | null = null;
  #identity: string | null = null;
  #received: GatewayMessage[] = [];
  #wake: (() => void) | null = null;
  #closeCode: number | null = null;
  #syncs = 0;
  /** When the current socket opened (ms since the epoch). */
  #openedAt = 0;

  constructor(
    private readonly url: string,
    readonly role: FuzzerRole,
    private readonly ctx: FuzzContext,
    readonly tally: FuzzTally,
    private readonly timeoutMs = REAL_WAIT_MS,
  ) {}

  /** Sends every frame, batch by batch, and checks the answers. */
  async run(frames: readonly FuzzFrame[]): Promise<void> {
    await this.#open();
    let expected: Expected[] = [];
    let pending = 0;
    for (const frame of frames) {
      if (frame.kind === 'oversize' || frame.kind === 'not-utf8') {
        await this.#check(expected);
        expected = [];
        pending = 0;
        await this.#closing(frame);
        continue;
      }
      const ws = this.#socket();
      if (frame.kind === 'binary') {
        ws.send(frame.bytes, { binary: true });
        expected.push(signature('error', SignallingErrorCode.BadRequest));
      } else {
        const text = frame.build(this.ctx);
        // What the gateway reads: the text as UTF-8 (a lone surrogate becomes U+FFFD).
        const onWire = Buffer.from(text, 'utf8').toString('utf8');
        const { answer, identity } = expectedAnswer(onWire, this.#identity, this.ctx);
        this.#identity = identity;
        if (answer !== undefined) expected.push(answer);
        ws.send(text);
      }
      this.tally.sent++;
      if (++pending >= BATCH) {
        await this.#check(expected);
        expected = [];
        pending = 0;
        await this.#renewAnonymous();
      }
    }
    await this.#check(expected);
  }

  /**
   * An anonymous socket is closed by the gateway once it has gone unauthenticated for
   * `AUTH_DEADLINE_MS` (a slow run can get there): between batches, one half that old is replaced
   * by a fresh one, as a client would reconnect.
   */
  async #renewAnonymous(): Promise<void> {
    if (this.#identity !== null || Date.now() - this.#openedAt < AUTH_DEADLINE_MS / 2) return;
    await this.close();
    await this.#open();
  }

  /** Closes the socket (as a client leaving would) and waits until it is closed. */
  async close(): Promise<void> {
    const ws = this.#ws;
    if (!ws || ws.readyState === ws.CLOSED) return;
    const closed = new Promise<void>((resolve) => ws.once('close', () => resolve()));
    ws.close();
    await closed;
  }

  #socket(): WebSocket {
    if (!this.#ws || this.#closeCode !== null) {
      throw new Error(`${this.role.name}: the socket closed unexpectedly (${this.#closeCode})`);
    }
    return this.#ws;
  }

  async #open(): Promise<void> {
    const ws = new WebSocket(this.url);
    await new Promise((resolve, reject) => {
      ws.once('open', resolve);
      ws.once('error', reject);
    });
    this.#ws = ws;
    this.#openedAt = Date.now();
    this.#closeCode = null;
    this.#received = [];
    this.#identity = null;
    ws.on('message', (data: Buffer, isBinary) => this.#onMessage(data, isBinary));
    ws.on('close', (code) => {
      this.#closeCode = code;
      this.#wake?.();
    });
    // A reset while the client still writes an oversize frame is the same close, seen late.
    ws.on('error', () => undefined);
    const { token, register } = this.role;
    if (!token) return;
    ws.send(encodeFrame('listen', { token: token.token }));
    await this.#next((f) => f.type === 'connected', 'connected');
    this.#identity = token.identity;
    if (!register) return;
    ws.send(encodeFrame('register', { media: { audio: true } }));
    await this.#next((f) => f.type === 'ready', 'ready');
  }

  #onMessage(data: Buffer, isBinary: boolean): void {
    const text = data.toString('utf8');
    if (text === '\n' && !isBinary) return;
    let frame: GatewayMessage | undefined;
    try {
      const parsed = GatewayMessage.safeParse(JSON.parse(text));
      if (parsed.success) frame = parsed.data;
    } catch {
      frame = undefined;
    }
    if (!frame || isBinary) {
      this.tally.problems.push(`${this.role.name}: the gateway sent a malformed frame: ${text}`);
    } else {
      this.#received.push(frame);
    }
    this.#wake?.();
  }

  /** Waits for (and takes) the first received frame `accept` wants. */
  async #next(accept: (f: GatewayMessage) => boolean, what: string): Promise<GatewayMessage> {
    const deadline = Date.now() + this.timeoutMs;
    for (;;) {
      const index = this.#received.findIndex(accept);
      if (index >= 0) return this.#received.splice(index, 1)[0]!;
      if (this.#closeCode !== null) {
        throw new Error(`${this.role.name}: closed (${this.#closeCode}) waiting for ${what}`);
      }
      const left = deadline - Date.now();
      if (left <= 0) {
        const got = JSON.stringify(this.#received.map(signatureOf));
        throw new WaitTimeoutError(`${this.role.name}: no ${what} in ${this.timeoutMs} ms; ${got}`);
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.#wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.#wake = null;
    }
  }

  /** Ends a batch: a sync frame, then every answer since the last check against `expected`. */
  async #check(expected: Expected[]): Promise<void> {
    const sync = `sync-${this.role.name}-${++this.#syncs}`;
    this.#socket().send(encodeFrame('dtmf', { callsid: sync, dtmf: '1' }));
    const syncCode = this.#identity
      ? SignallingErrorCode.CallNotFound
      : SignallingErrorCode.AccessTokenInvalid;
    expected.push(signature('error', syncCode, sync));
    const synced = await this.#next(
      (f) => f.type === 'error' && f.payload.callsid === sync,
      `the answer to ${sync}`,
    );
    const answers = this.#received.splice(0);
    for (const answer of answers) {
      if (answer.type === 'error' || answer.type === 'hangup') {
        const error = answer.payload.error;
        count(this.tally.answers, `${answer.type} ${error?.code ?? '-'}`);
        if (typeof error?.code !== 'number' || error.message.trim() === '') {
          this.tally.problems.push(
            `${this.role.name}: an answer without a coded error: ${JSON.stringify(answer)}`,
          );
        }
        if (error && /failed to handle/i.test(error.message)) {
          this.tally.problems.push(
            `${this.role.name}: the gateway failed internally: ${error.message}`,
          );
        }
      } else {
        count(this.tally.answers, answer.type);
      }
    }
    // The sync's own answer is compared, not counted.
    const got = [...answers, synced].map(signatureOf).sort();
    const want = [...expected].sort();
    if (JSON.stringify(got) !== JSON.stringify(want)) {
      const missing = want.filter((s) => !got.includes(s));
      const extra = got.filter((s) => !want.includes(s));
      this.tally.problems.push(
        `${this.role.name} (batch ending ${sync}): expected ${want.length} answers, got ${got.length}; ` +
          `missing ${JSON.stringify(missing.slice(0, 5))}, unexpected ${JSON.stringify(extra.slice(0, 5))}`,
      );
    }
  }

  /** Sends a frame that must close the socket, checks the code, and opens a fresh socket. */
  async #closing(frame: Extract<FuzzFrame, { kind: 'oversize' | 'not-utf8' }>): Promise<void> {
    const ws = this.#socket();
    const want = frame.kind === 'oversize' ? CLOSE_CODE.tooBig : CLOSE_CODE.notUtf8;
    if (frame.kind === 'oversize') {
      const payload = frame.binary
        ? Buffer.alloc(frame.bytes, 0x61)
        : // A well-formed invite aimed at the live call, only too big.
          encodeFrame('invite', {
            callsid: this.ctx.liveCallSid,
            sdp: 'a'.repeat(frame.bytes),
            reconnect: this.ctx.liveReconnect,
          });
      ws.send(payload, { binary: frame.binary });
    } else {
      ws.send(frame.bytes, { binary: false });
    }
    this.tally.sent++;
    const deadline = Date.now() + this.timeoutMs;
    while (this.#closeCode === null && Date.now() < deadline) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, deadline - Date.now());
        this.#wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.#wake = null;
    }
    const code = this.#closeCode;
    if (code !== null) count(this.tally.closes, code);
    if (code !== want) {
      this.tally.problems.push(
        `${this.role.name}: a ${frame.kind} frame closed with ${code}, not ${want}`,
      );
    }
    const left = this.#received.splice(0);
    if (left.length > 0) {
      this.tally.problems.push(
        `${this.role.name}: answers to a ${frame.kind} frame: ${JSON.stringify(left)}`,
      );
    }
    if (code === null) ws.terminate();
    await this.#open();
  }
}
