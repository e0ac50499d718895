import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { RtpHeader, SrtpSession } from 'werift';
import { fastRtpHeaderParse, leanSrtp } from './werift-fast-paths';

/** A raw RTP header (+ payload) with the given first two bytes. */
function rawPacket(first: number, second: number, extra: Buffer, payload: Buffer): Buffer {
  const header = Buffer.alloc(12);
  header[0] = first;
  header[1] = second;
  header.writeUInt16BE(0xbeef, 2);
  header.writeUInt32BE(0xdeadbeef, 4);
  header.writeUInt32BE(0x01020304, 8);
  return Buffer.concat([header, extra, payload]);
}

/** What a parsed header says, as plain data. */
const fieldsOf = (header: RtpHeader) => ({
  version: header.version,
  padding: header.padding,
  extension: header.extension,
  marker: header.marker,
  payloadType: header.payloadType,
  sequenceNumber: header.sequenceNumber,
  timestamp: header.timestamp,
  ssrc: header.ssrc,
  csrcLength: header.csrcLength,
  csrc: header.csrc,
  payloadOffset: header.payloadOffset,
  paddingSize: header.paddingSize,
  extensions: header.extensions.map((e) => ({ id: e.id, payload: [...e.payload] })),
});

describe('fastRtpHeaderParse', () => {
  // One-byte header extension (id 1, 1 byte) padded to 4 bytes; one CSRC.
  const extension = Buffer.from([0xbe, 0xde, 0x00, 0x01, 0x10, 0x7f, 0x00, 0x00]);
  const csrc = Buffer.from([0, 0, 0, 9]);
  const cases: Array<[string, Buffer]> = [
    ['PCMU with the marker', rawPacket(0x80, 0x80, Buffer.alloc(0), randomBytes(160))],
    ['PCMU without it', rawPacket(0x80, 0x00, Buffer.alloc(0), randomBytes(160))],
    ['telephone-event (101)', rawPacket(0x80, 0x65, Buffer.alloc(0), randomBytes(4))],
    [
      'padded (3 bytes of padding)',
      rawPacket(
        0xa0,
        0x00,
        Buffer.alloc(0),
        Buffer.concat([randomBytes(8), Buffer.from([0, 0, 3])]),
      ),
    ],
    ['with a header extension', rawPacket(0x90, 0x6f, extension, randomBytes(20))],
    ['with a CSRC', rawPacket(0x81, 0x00, csrc, randomBytes(20))],
    ['version 1 (not RTP 2)', rawPacket(0x40, 0x00, Buffer.alloc(0), randomBytes(20))],
  ];

  it('parses every header as werift does, and leaves werift the ones it does not handle', () => {
    const expected = cases.map(([, raw]) => fieldsOf(RtpHeader.deSerialize(raw)));
    fastRtpHeaderParse();
    fastRtpHeaderParse(); // idempotent
    const actual = cases.map(([, raw]) => fieldsOf(RtpHeader.deSerialize(raw)));
    for (const [i, [name]] of cases.entries()) expect(actual[i], name).toEqual(expected[i]);
    // The parsed object is still werift's class (it serializes as before).
    const parsed = RtpHeader.deSerialize(cases[0]![1]);
    expect(parsed).toBeInstanceOf(RtpHeader);
    expect(parsed.serialize(parsed.serializeSize)).toEqual(cases[0]![1].subarray(0, 12));
  });
});

/** werift's AES-GCM SRTP profile (SRTP_AEAD_AES_128_GCM). */
const AEAD_AES_128_GCM = 7;
/** werift's AES-CM profile (SRTP_AES128_CM_HMAC_SHA1_80). */
const AES_CM_128_HMAC_SHA1_80 = 1;

/** Keys of the two ends of one DTLS association. */
const keying = (keyLength: number, saltLength: number) => ({
  a: randomBytes(keyLength),
  b: randomBytes(keyLength),
  saltA: randomBytes(saltLength),
  saltB: randomBytes(saltLength),
});

/** Two SRTP sessions (fresh rollover state) keyed with `keys`, the sender's end and the receiver's. */
function sessionPair(profile: number, keys: ReturnType<typeof keying>) {
  const session = (local: Buffer, localSalt: Buffer, remote: Buffer, remoteSalt: Buffer) =>
    new SrtpSession({
      keys: {
        localMasterKey: local,
        localMasterSalt: localSalt,
        remoteMasterKey: remote,
        remoteMasterSalt: remoteSalt,
      },
      profile,
    });
  return {
    sender: session(keys.a, keys.saltA, keys.b, keys.saltB),
    receiver: session(keys.b, keys.saltB, keys.a, keys.saltA),
  };
}

/** Headers of a stream crossing the sequence number's wrap (the rollover counter moves). */
const stream = (count: number) =>
  Array.from({ length: count }, (_, i) => ({
    header: new RtpHeader({
      payloadType: 0,
      sequenceNumber: (0xfffd + i) & 0xffff,
      timestamp: (0xffffff00 + i * 160) >>> 0,
      ssrc: 0x11223344,
      marker: i === 0,
    }),
    payload: randomBytes(160),
  }));

describe('leanSrtp', () => {
  it('encrypts AES-GCM packets to the same bytes as werift, and decrypts them to the same packets', () => {
    const keys = keying(16, 12);
    const packets = stream(8);
    // werift's own, before the patch (the patch is on the cipher's class, for every session).
    const unpatched = sessionPair(AEAD_AES_128_GCM, keys);
    const expected = packets.map(({ header, payload }) =>
      unpatched.sender.encrypt(payload, header),
    );
    const expectedPlain = expected.map((packet) => unpatched.receiver.decrypt(packet));

    const { sender: patchedSender, receiver: patchedReceiver } = sessionPair(
      AEAD_AES_128_GCM,
      keys,
    );
    const prototype = Object.getPrototypeOf(patchedSender.localContext.cipher) as object;
    const before = Reflect.get(prototype, 'decryptRtp') as unknown;
    leanSrtp({ srtp: patchedSender });
    expect(Reflect.get(prototype, 'decryptRtp')).not.toBe(before); // the lean path is on
    const actual = packets.map(({ header, payload }) => patchedSender.encrypt(payload, header));
    expect(actual).toEqual(expected);
    expect(actual.map((packet) => patchedReceiver.decrypt(packet))).toEqual(expectedPlain);
    // The plain packets are the headers and payloads sent.
    for (const [i, plain] of expectedPlain.entries()) {
      expect(plain.subarray(12)).toEqual(packets[i]!.payload);
    }
  });

  it('refuses a tampered or truncated AES-GCM packet with werift’s own error', () => {
    const { sender, receiver } = sessionPair(AEAD_AES_128_GCM, keying(16, 12));
    leanSrtp({ srtp: sender });
    const { header, payload } = stream(1)[0]!;
    const packet = sender.encrypt(payload, header);
    const tampered = Buffer.from(packet);
    tampered[20]! ^= 1;
    expect(() => receiver.decrypt(tampered)).toThrow(
      expect.objectContaining({ name: 'SrtpAuthenticationError' }),
    );
    expect(() => receiver.decrypt(packet.subarray(0, 20))).toThrow(
      expect.objectContaining({ name: 'SrtpAuthenticationError' }),
    );
    // The untouched packet still decrypts after the refusals.
    expect(receiver.decrypt(packet).subarray(12)).toEqual(payload);
  });

  it('leaves AES-CM sessions, and transports not keyed yet, as they are', () => {
    const { sender, receiver } = sessionPair(AES_CM_128_HMAC_SHA1_80, keying(16, 14));
    const prototype = Object.getPrototypeOf(sender.localContext.cipher) as Record<string, unknown>;
    const before = { encrypt: prototype.encryptRtp, decrypt: prototype.decryptRtp };
    leanSrtp({ srtp: sender });
    leanSrtp({});
    leanSrtp(undefined);
    expect({ encrypt: prototype.encryptRtp, decrypt: prototype.decryptRtp }).toEqual(before);
    const { header, payload } = stream(1)[0]!;
    expect(receiver.decrypt(sender.encrypt(payload, header)).subarray(12)).toEqual(payload);
  });
});
