import { createCipheriv, createDecipheriv } from 'node:crypto';
import { RTCRtpReceiver, RtpHeader } from 'werift';
import { MediaError } from './media-errors';

/**
 * Cheaper per-packet paths through werift for the engine's audio legs.
 *
 * Every leg receives and sends 50 RTP packets a second, so what werift does per packet is most
 * of the media workers' time (`perf` at 40 legs: receiving a packet, socket to leg, in 36 % of
 * the engine process's samples, werift's sending in most of another 15 %, SRTP's AES-GCM itself
 * in about 12 %). werift is
 * written for generality (video, simulcast, RTX, RED, header extensions); for a PCMU stream
 * without header extensions most of that work is not needed, and some is needlessly costly (an
 * RTP header parsed bit by bit through strings, twice per packet; buffers grown by copying; the
 * packet cloned for each track). The patches here take a shorter path for exactly that common
 * case and hand everything else to werift's own code, so behaviour is unchanged: same objects,
 * same errors, same statistics for RTCP.
 *
 * Each patch is applied once per thread (each worker has its own werift module), idempotent,
 * and throws `InternalError` if werift's internals changed shape (re-check after upgrading).
 */

/** RTP header fields werift's parser sets, as this module writes them. */
interface HeaderFields {
  version: number;
  padding: boolean;
  extension: boolean;
  csrcLength: number;
  marker: boolean;
  payloadType: number;
  sequenceNumber: number;
  timestamp: number;
  ssrc: number;
  payloadOffset: number;
  paddingSize: number;
}

const RTP_HEADER_SIZE = 12;

let headerPatched = false;

/**
 * RTP headers without CSRCs or header extensions (every packet of our PCMU legs) are parsed with
 * a few byte reads instead of werift's `getBit`, which renders each byte as a string of bits;
 * any other header goes to werift's parser.
 */
export function fastRtpHeaderParse(): void {
  if (headerPatched) return;
  const original = RtpHeader.deSerialize.bind(RtpHeader);
  if (typeof original !== 'function') {
    throw new MediaError('InternalError', 'werift changed: RtpHeader.deSerialize is gone');
  }
  RtpHeader.deSerialize = function deSerialize(raw: Buffer): RtpHeader {
    // Version 2, no extension bit, no CSRCs: 0b10?0_0000.
    if (raw.length < RTP_HEADER_SIZE || (raw[0]! & 0xdf) !== 0x80) return original(raw);
    const header = new RtpHeader() as unknown as HeaderFields;
    const first = raw[0]!;
    const second = raw[1]!;
    header.version = 2;
    header.padding = (first & 0x20) !== 0;
    header.extension = false;
    header.csrcLength = 0;
    header.marker = (second & 0x80) !== 0;
    header.payloadType = second & 0x7f;
    header.sequenceNumber = raw.readUInt16BE(2);
    header.timestamp = raw.readUInt32BE(4);
    header.ssrc = raw.readUInt32BE(8);
    header.payloadOffset = RTP_HEADER_SIZE;
    if (header.padding) header.paddingSize = raw[raw.length - 1]!;
    return header as unknown as RtpHeader;
  };
  headerPatched = true;
}

/** The AES-GCM SRTP cipher werift made for a session (its class is not exported). */
interface GcmCipher {
  srtpSessionKey: Buffer;
  srtpSessionSalt: Buffer;
  aeadAuthTagLen: number;
  encryptRtp(header: RtpHeader, payload: Buffer, rolloverCounter: number): Buffer;
  decryptRtp(cipherText: Buffer, rolloverCounter: number, header?: RtpHeader): [Buffer, RtpHeader];
  rtpInitializationVector(header: RtpHeader, rolloverCounter: number): Buffer;
}

/** What of a connected werift `RTCDtlsTransport` {@link leanSrtp} reads. */
interface SrtpTransport {
  srtp?: { localContext?: { cipher?: unknown }; remoteContext?: { cipher?: unknown } };
}

/** Cipher prototypes already patched in this thread. */
const patchedCiphers = new WeakSet<object>();

/** RFC 7714 §8.1: the 12-byte IV of an SRTP packet, salted. */
function gcmIv(salt: Buffer, ssrc: number, rolloverCounter: number, sequence: number): Buffer {
  const iv = Buffer.allocUnsafe(12);
  iv.writeUInt16BE(0, 0);
  iv.writeUInt32BE(ssrc >>> 0, 2);
  iv.writeUInt32BE(rolloverCounter >>> 0, 6);
  iv.writeUInt16BE(sequence & 0xffff, 10);
  for (let i = 0; i < 12; i++) iv[i]! ^= salt[i]!;
  return iv;
}

/**
 * Makes the AES-GCM SRTP cipher of `transport` (once per thread: the patch is on its class)
 * encrypt and decrypt plain RTP packets (no padding, no CSRCs or extensions) into buffers of
 * their final size, with the IV written in place, instead of werift's buffer writers, a grown
 * copy and a concatenation per packet. Other packets, and every failure (so that the error
 * werift throws is the same), go to werift's own methods. AES-CM transports are left as they are.
 */
export function leanSrtp(transport: unknown): void {
  const srtp = (transport as SrtpTransport | undefined)?.srtp;
  if (srtp === undefined) return; // not keyed yet: the next leg patches the class
  const cipher = srtp.remoteContext?.cipher;
  if (cipher === undefined || srtp.localContext?.cipher === undefined) {
    throw new MediaError('InternalError', 'werift changed: RTCDtlsTransport.srtp has no cipher');
  }
  const prototype = Object.getPrototypeOf(cipher) as GcmCipher;
  if (patchedCiphers.has(prototype)) return;
  patchedCiphers.add(prototype);
  if (typeof prototype.rtpInitializationVector !== 'function') return; // not AES-GCM
  const { decryptRtp: originalDecrypt, encryptRtp: originalEncrypt } = prototype as {
    decryptRtp: (
      this: GcmCipher,
      ...args: Parameters<GcmCipher['decryptRtp']>
    ) => [Buffer, RtpHeader];
    encryptRtp: (this: GcmCipher, ...args: Parameters<GcmCipher['encryptRtp']>) => Buffer;
  };
  prototype.decryptRtp = function decryptRtp(
    this: GcmCipher,
    cipherText: Buffer,
    rolloverCounter: number,
    header?: RtpHeader,
  ): [Buffer, RtpHeader] {
    const fields = header as unknown as HeaderFields | undefined;
    const tagLength = this.aeadAuthTagLen;
    const tagOffset = cipherText.length - tagLength;
    if (
      fields === undefined ||
      fields.padding ||
      fields.payloadOffset !== RTP_HEADER_SIZE ||
      tagOffset < RTP_HEADER_SIZE
    ) {
      return originalDecrypt.call(this, cipherText, rolloverCounter, header);
    }
    const iv = gcmIv(this.srtpSessionSalt, fields.ssrc, rolloverCounter, fields.sequenceNumber);
    const decipher = createDecipheriv('aes-128-gcm', this.srtpSessionKey, iv);
    decipher.setAAD(cipherText.subarray(0, RTP_HEADER_SIZE));
    decipher.setAuthTag(cipherText.subarray(tagOffset));
    const plain = Buffer.allocUnsafe(tagOffset);
    cipherText.copy(plain, 0, 0, RTP_HEADER_SIZE);
    decipher.update(cipherText.subarray(RTP_HEADER_SIZE, tagOffset)).copy(plain, RTP_HEADER_SIZE);
    try {
      decipher.final();
    } catch {
      // werift's method throws its own SrtpAuthenticationError for the same packet.
      return originalDecrypt.call(this, cipherText, rolloverCounter, header);
    }
    fields.paddingSize = 0;
    return [plain, header!];
  };
  prototype.encryptRtp = function encryptRtp(
    this: GcmCipher,
    header: RtpHeader,
    payload: Buffer,
    rolloverCounter: number,
  ): Buffer {
    const fields = header as unknown as HeaderFields & { csrc: unknown[]; extensions: unknown[] };
    if (fields.padding || fields.csrc.length > 0 || fields.extensions.length > 0) {
      return originalEncrypt.call(this, header, payload, rolloverCounter);
    }
    const out = Buffer.allocUnsafe(RTP_HEADER_SIZE + payload.length + this.aeadAuthTagLen);
    out[0] = 0x80;
    out[1] = (fields.marker ? 0x80 : 0) | (fields.payloadType & 0x7f);
    out.writeUInt16BE(fields.sequenceNumber & 0xffff, 2);
    out.writeUInt32BE(fields.timestamp >>> 0, 4);
    out.writeUInt32BE(fields.ssrc >>> 0, 8);
    const iv = gcmIv(this.srtpSessionSalt, fields.ssrc, rolloverCounter, fields.sequenceNumber);
    const cipher = createCipheriv('aes-128-gcm', this.srtpSessionKey, iv);
    cipher.setAAD(out.subarray(0, RTP_HEADER_SIZE));
    cipher.update(payload).copy(out, RTP_HEADER_SIZE);
    cipher.final();
    cipher.getAuthTag().copy(out, RTP_HEADER_SIZE + payload.length);
    return out;
  };
}

/** The parts of werift's `RTCRtpReceiver` the lean receive path uses (private ones included). */
interface ReceiverInternals {
  stopped: boolean;
  codecs: Record<number, { name: string; clockRate: number } | undefined>;
  remoteStreams: Record<number, { add(packet: unknown): void } | undefined>;
  receiverTWCC?: unknown;
  twccEnabled?: boolean;
  runRtcp(): void;
  handleRTP(packet: RtpPacketLike, extensions: unknown, track: TrackLike | undefined): void;
}

interface RtpPacketLike {
  header: { payloadType: number; ssrc: number };
}

interface TrackLike {
  kind: string;
  onReceiveRtp: { execute(packet: unknown, extensions: unknown): void };
}

let receivePatched = false;

/**
 * werift's `RTCRtpReceiver.handleRTP` for a packet of an audio track whose stream statistics
 * exist, with a plain codec (not RTX or RED) and no transport-wide congestion control: it keeps
 * the statistics RTCP reports are made of and hands the packet to the track as werift does, but
 * without cloning it (our leg's only subscriber decodes the payload at once and keeps nothing of
 * the packet) and without lower-casing the codec's name twice per packet. Anything else goes to
 * werift's method.
 */
export function leanAudioReceive(): void {
  if (receivePatched) return;
  const prototype = RTCRtpReceiver.prototype as unknown as ReceiverInternals;
  const { handleRTP: original } = prototype as {
    handleRTP: (
      this: ReceiverInternals,
      ...args: Parameters<ReceiverInternals['handleRTP']>
    ) => void;
  };
  if (typeof original !== 'function' || typeof prototype.runRtcp !== 'function') {
    throw new MediaError('InternalError', 'werift changed: RTCRtpReceiver.handleRTP is gone');
  }
  const plainCodec = new WeakMap<object, boolean>();
  prototype.handleRTP = function handleRTP(
    this: ReceiverInternals,
    packet: RtpPacketLike,
    extensions: unknown,
    track: TrackLike | undefined,
  ): void {
    const codec = this.codecs[packet.header.payloadType];
    const stream = this.remoteStreams[packet.header.ssrc];
    if (
      this.stopped ||
      codec === undefined ||
      stream === undefined ||
      track?.kind !== 'audio' ||
      this.receiverTWCC !== undefined ||
      this.twccEnabled
    ) {
      original.call(this, packet, extensions, track);
      return;
    }
    let plain = plainCodec.get(codec);
    if (plain === undefined) {
      const name = codec.name.toLowerCase();
      plain = name !== 'rtx' && name !== 'red';
      plainCodec.set(codec, plain);
    }
    if (!plain) {
      original.call(this, packet, extensions, track);
      return;
    }
    stream.add(packet);
    track.onReceiveRtp.execute(packet, extensions);
    this.runRtcp();
  };
  receivePatched = true;
}
