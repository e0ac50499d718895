import { describe, expect, it } from 'vitest';
import { RtpPacket } from 'werift';
import { RtpPacketizer } from './rtp-packetizer';

describe('RtpPacketizer', () => {
  it('numbers packets from random starts and marks only the first', () => {
    const randoms = [0.5, 0.25];
    const packetizer = new RtpPacketizer({ ssrc: 1234, random: () => randoms.shift() ?? 0 });
    const payload = Buffer.alloc(160, 0xff);
    const packets = [0, 1, 2].map(() =>
      RtpPacket.deSerialize(packetizer.packetize(payload, 160).serialize()),
    );
    expect(packets.map((packet) => packet.header.sequenceNumber)).toEqual([0x8000, 0x8001, 0x8002]);
    expect(packets.map((packet) => packet.header.timestamp)).toEqual([
      0x4000_0000,
      0x4000_0000 + 160,
      0x4000_0000 + 320,
    ]);
    expect(packets.map((packet) => packet.header.marker)).toEqual([true, false, false]);
    expect(
      packets.every((packet) => packet.header.payloadType === 0 && packet.header.ssrc === 1234),
    ).toBe(true);
    expect(packets[0]?.payload).toEqual(payload);
  });

  it('wraps the sequence number and the timestamp', () => {
    const randoms = [0xffff / 0x1_0000, 0xffff_ff60 / 0x1_0000_0000];
    const packetizer = new RtpPacketizer({ ssrc: 1, random: () => randoms.shift() ?? 0 });
    const first = packetizer.packetize(Buffer.alloc(160), 160);
    const second = packetizer.packetize(Buffer.alloc(160), 160);
    expect(first.header.sequenceNumber).toBe(0xffff);
    expect(second.header.sequenceNumber).toBe(0);
    expect(first.header.timestamp).toBe(0xffff_ff60);
    expect(second.header.timestamp).toBe(0);
  });

  it('skips media time: the timestamp jumps, the sequence number does not', () => {
    const randoms = [0.5, 0.25];
    const packetizer = new RtpPacketizer({ ssrc: 1, random: () => randoms.shift() ?? 0 });
    const first = packetizer.packetize(Buffer.alloc(160), 160);
    packetizer.skip(3 * 160);
    const second = packetizer.packetize(Buffer.alloc(160), 160);
    expect(second.header.sequenceNumber).toBe((first.header.sequenceNumber + 1) & 0xffff);
    expect(second.header.timestamp).toBe((first.header.timestamp + 4 * 160) >>> 0);
  });
});
