import { Connection, DtlsClient } from 'werift';
import { MediaError } from './media-errors';

/** The part of werift's ICE `Connection` this module changes (private in its typings). */
interface ConnectionInternals {
  options: { stunServer?: unknown };
  stunServer: unknown;
  applyStunTurnServersFromOptions: (this: ConnectionInternals) => void;
}

let patched = false;

/**
 * Stops werift from querying Google's public STUN server when a peer has no STUN server.
 *
 * werift 0.25 falls back to `stun.l.google.com:19302` whenever `iceServers` names no STUN
 * server (`Connection.applyStunTurnServersFromOptions`), even with `iceServers: []`. Offline, a
 * burst of legs then waits for its 5 s STUN gathering timeout (the spike's "some legs stalled
 * about 5 s with 50+ legs at once": the DNS lookups of many legs queue in libuv's pool and the
 * later ones time out); online, every leg would send a STUN request to Google and announce a
 * server-reflexive candidate besides `VOICE_ICE_ADDRESSES`. The engine announces its own
 * addresses and needs no STUN server, so without one configured none is used.
 *
 * Idempotent; call it before creating peers in each thread (each has its own werift module).
 * Throws `InternalError` if werift's internals changed shape (re-check after upgrading werift).
 */
export function disableDefaultStunServer(): void {
  if (patched) return;
  const prototype = Connection.prototype as unknown as ConnectionInternals;
  const original = prototype.applyStunTurnServersFromOptions;
  if (typeof original !== 'function') {
    throw new MediaError(
      'InternalError',
      'werift changed: Connection.applyStunTurnServersFromOptions is gone; re-check werift-stun.ts',
    );
  }
  prototype.applyStunTurnServersFromOptions = function (this: ConnectionInternals): void {
    original.call(this);
    if (this.options.stunServer === undefined) this.stunServer = undefined;
  };
  patched = true;
}

/** DTLS handshake type of a HelloVerifyRequest (RFC 6347 §4.2.1). */
const HELLO_VERIFY_REQUEST = 3;
/** werift's DTLS client flight that sends the ClientHello with the server's cookie. */
const COOKIE_CLIENT_HELLO_FLIGHT = 3;

let helloVerifyPatched = false;

/**
 * Makes werift's DTLS client ignore a repeated HelloVerifyRequest instead of failing the
 * handshake.
 *
 * When a DTLS server is slow to answer (a burst of legs setting up at once), werift's client
 * retransmits its ClientHello after 500 ms; a server that then answers both copies (werift's
 * own DTLS server does) sends the HelloVerifyRequest twice. werift 0.25's client answers the
 * first with the cookie ClientHello (flight 3) and throws on the second (`Flight3.exec`:
 * `if (this.dtls.flight === 3) throw new Error()`), which fails the DTLS transport and with it
 * the leg, while the server, left waiting for flight 5, retransmits its flight 4 into the void.
 * RFC 6347 §4.2.1 has the client simply go on: a copy that carries the cookie it already sent is
 * dropped here (its flight-3 retransmission timer covers a lost cookie ClientHello); one with a
 * new cookie still reaches werift.
 *
 * Idempotent; call it before creating peers in each thread (each has its own werift module).
 * Throws `InternalError` if werift's internals changed shape (re-check after upgrading werift).
 */
export function ignoreRepeatedHelloVerifyRequests(): void {
  if (helloVerifyPatched) return;
  const prototype = DtlsClient.prototype;
  const original: unknown = Reflect.get(prototype, 'connect');
  if (typeof original !== 'function') {
    throw new MediaError(
      'InternalError',
      'werift changed: DtlsClient.connect is gone; re-check werift-internals.ts',
    );
  }
  const connect = original as (this: DtlsClient) => Promise<void>;
  prototype.connect = function (this: DtlsClient): Promise<void> {
    const handle = this.onHandleHandshakes;
    if (typeof handle !== 'function') {
      // werift awaits `connect()` and fails the DTLS transport when it rejects.
      return Promise.reject(
        new MediaError(
          'InternalError',
          'werift changed: DtlsSocket.onHandleHandshakes is gone; re-check werift-internals.ts',
        ),
      );
    }
    this.onHandleHandshakes = (assembled) => {
      const { flight, cookie } = this.dtls;
      const fresh = assembled.filter(
        (handshake) =>
          handshake.msg_type !== HELLO_VERIFY_REQUEST ||
          flight < COOKIE_CLIENT_HELLO_FLIGHT ||
          cookie === undefined ||
          !helloVerifyCookie(handshake.fragment).equals(cookie),
      );
      return fresh.length === 0 ? Promise.resolve() : handle(fresh);
    };
    return connect.call(this);
  };
  helloVerifyPatched = true;
}

/** The cookie of a HelloVerifyRequest body: server_version (2 bytes), cookie<0..2^8-1>. */
function helloVerifyCookie(body: Buffer): Buffer {
  const length = body[2] ?? 0;
  return body.subarray(3, 3 + length);
}

const INTERRUPTIBLE = Symbol.for('leadline.interruptible');

/** werift's UDP transport of one ICE candidate (public fields of `UdpTransport`). */
interface UdpTransportInternals {
  onData: (data: Buffer, addr: unknown) => void;
  send: (data: Buffer, addr?: unknown) => Promise<void>;
  [INTERRUPTIBLE]?: true;
}

/** The part of werift's ICE `Connection` that holds its sockets (private in its typings). */
interface ConnectionSockets {
  protocols?: Array<{ transport?: UdpTransportInternals }>;
}

/** Something that reads the time in milliseconds. */
export interface NowSource {
  now(): number;
}

/**
 * Cuts a peer connection's UDP sockets off (test hook): until `until()` has passed, every
 * datagram it would send is dropped and every datagram it receives is ignored, as if the network
 * between the peers failed. Wraps the sockets of the ICE transports that exist now (ICE restarts
 * keep them). Throws `InternalError` if werift's internals changed shape.
 */
export function interruptSockets(
  iceTransports: ReadonlyArray<{ connection: unknown }>,
  clock: NowSource,
  blockedUntil: () => number,
): void {
  for (const iceTransport of iceTransports) {
    const protocols = (iceTransport.connection as ConnectionSockets).protocols;
    if (!Array.isArray(protocols)) {
      throw new MediaError(
        'InternalError',
        'werift changed: ICE Connection.protocols is gone; re-check werift-internals.ts',
      );
    }
    for (const protocol of protocols) {
      const transport = protocol.transport;
      if (!transport || transport[INTERRUPTIBLE]) continue;
      const receive = transport.onData;
      const send = transport.send;
      transport.onData = (data, addr) => {
        if (clock.now() >= blockedUntil()) receive(data, addr);
      };
      transport.send = (data, addr) =>
        clock.now() >= blockedUntil() ? send(data, addr) : Promise.resolve();
      transport[INTERRUPTIBLE] = true;
    }
  }
}

/** What {@link resumeIceAfterRestart} needs of a peer's ICE transports. */
export interface RestartableIceTransport {
  /** werift's ICE agent; `nominated` is its selected pair (private in its typings). */
  connection: unknown;
  start(): Promise<void>;
}

/**
 * Runs ICE connectivity checks again after an ICE restart of a peer whose DTLS is up.
 *
 * werift 0.25's `RTCPeerConnection.connect()` (run when a description completes the
 * negotiation) returns early when the DTLS transport is already connected, so after an ICE
 * restart nobody starts the new checks: the restarted ICE agent has no selected pair and every
 * send fails, though the browser's ICE restart "succeeds" (werift answers its checks). Starting
 * each restarted transport fixes that; DTLS needs nothing, its association outlives the
 * restart. Failures arrive as the transport's (and the peer's) `failed` state.
 */
export function resumeIceAfterRestart(
  iceTransports: readonly RestartableIceTransport[],
  onError: (error: unknown) => void,
): void {
  for (const transport of iceTransports) {
    // A restarted agent has no selected pair (werift reports its state as `completed` as soon
    // as gathering ends, so the state cannot tell).
    const agent = transport.connection as { nominated?: unknown; remoteUsername?: string };
    if (agent.nominated === undefined && agent.remoteUsername) transport.start().catch(onError);
  }
}

/** The parts of werift's `RTCRtpSender` that {@link directRtpSend} uses (private fields included). */
interface SenderInternals {
  ssrc: number;
  dtlsTransport?: DtlsTransportInternals;
  packetCount: number;
  octetCount: number;
  rtpTimestamp: number;
  ntpTimestamp: bigint;
}

/** The parts of werift's `RTCDtlsTransport` that {@link directRtpSend} uses. */
interface DtlsTransportInternals {
  sendRtp(payload: Buffer, header: RtpHeaderLike): Promise<number>;
  srtp?: { encrypt(payload: Buffer, header: RtpHeaderLike): Buffer };
  bytesSent: number;
  packetsSent: number;
  config?: { debug?: { outboundPacketLoss?: number } };
  iceTransport?: { connection?: IceConnectionInternals };
}

/** The parts of werift's ICE `Connection` that {@link directRtpSend} uses. */
interface IceConnectionInternals {
  canSendApplicationData(): boolean;
  send(data: Buffer): Promise<void>;
  nominated?: {
    remoteAddr: [string, number];
    packetsSent: number;
    bytesSent: number;
    protocol: {
      transport?: { type?: string; closed?: boolean; send: UdpTransportInternals['send'] };
    };
  };
}

/** An RTP header as werift's transports take it. */
export interface RtpHeaderLike {
  timestamp: number;
  ssrc: number;
}

/** NTP epoch (1900) to Unix epoch (1970), in seconds. */
const NTP_UNIX_OFFSET_S = 2_208_988_800;

/**
 * A cheaper way to send RTP on a werift sender: straight to its DTLS transport (SRTP, ICE),
 * keeping the counters its RTCP sender reports are made of.
 *
 * werift's `RTCRtpSender.sendRtp` clones every packet, renders an NTP time through strings,
 * rebuilds header extensions and caches the packet for retransmission; for a PCMU stream with
 * no header extensions and no NACK that is a third of the cost of sending (and a good share of
 * the garbage). Throws `InternalError` if werift's internals changed shape.
 */
export function directRtpSend(
  sender: unknown,
  now: () => number = () => performance.timeOrigin + performance.now(),
): (payload: Buffer, header: RtpHeaderLike) => Promise<unknown> {
  const internals = sender as SenderInternals;
  const transport = internals.dtlsTransport;
  if (typeof transport?.sendRtp !== 'function' || typeof internals.packetCount !== 'number') {
    throw new MediaError(
      'InternalError',
      'werift changed: RTCRtpSender.dtlsTransport.sendRtp is gone; re-check werift-internals.ts',
    );
  }
  // werift's RTCP sender report reads `ntpTimestamp` now and then: each packet only stores the
  // time it was sent, and the NTP timestamp (a BigInt) is made from it when read. werift's own
  // `sendRtp` may still assign one; that value stands until the next packet sent here.
  let lastSentUnixMs: number | undefined;
  let assigned: bigint = internals.ntpTimestamp;
  Object.defineProperty(internals, 'ntpTimestamp', {
    configurable: true,
    enumerable: true,
    get(): bigint {
      if (lastSentUnixMs === undefined) return assigned;
      const seconds = Math.floor(lastSentUnixMs / 1000);
      const fraction = Math.floor(((lastSentUnixMs % 1000) / 1000) * 0x1_0000_0000);
      return (BigInt(seconds + NTP_UNIX_OFFSET_S) << 32n) | BigInt(fraction);
    },
    set(value: bigint): void {
      assigned = value;
      lastSentUnixMs = undefined;
    },
  });
  return (payload, header) => {
    lastSentUnixMs = now();
    internals.rtpTimestamp = header.timestamp;
    internals.packetCount = (internals.packetCount + 1) >>> 0;
    internals.octetCount += payload.length;
    return sendSrtp(transport, payload, header);
  };
}

/**
 * werift's `RTCDtlsTransport.sendRtp` without its chain of four async functions (transport, ICE
 * connection, STUN protocol, UDP socket: a promise and a microtask each, per packet): encrypts
 * and hands the packet to the selected pair's UDP transport (its `send`, so a test's
 * `interruptSockets` still applies), keeping the counters werift's statistics read. Anything
 * else (no SRTP yet, a TCP or TURN pair, werift's debug packet loss) takes werift's path.
 */
function sendSrtp(
  transport: DtlsTransportInternals,
  payload: Buffer,
  header: RtpHeaderLike,
): Promise<unknown> {
  const connection = transport.iceTransport?.connection;
  const socket = connection?.nominated?.protocol.transport;
  if (
    transport.srtp === undefined ||
    connection === undefined ||
    socket?.type !== 'udp' ||
    transport.config?.debug?.outboundPacketLoss !== undefined
  ) {
    return transport.sendRtp(payload, header);
  }
  try {
    const packet = transport.srtp.encrypt(payload, header);
    transport.bytesSent += packet.length;
    transport.packetsSent++;
    if (!connection.canSendApplicationData() || socket.closed) return Promise.resolve();
    const pair = connection.nominated!;
    pair.packetsSent++;
    pair.bytesSent += packet.length;
    return socket.send(packet, pair.remoteAddr);
  } catch (error) {
    return Promise.reject(error instanceof Error ? error : new Error(String(error)));
  }
}
