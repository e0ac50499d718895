/**
 * Timestamps a werift peer's incoming PCMU datagrams at its UDP sockets, before werift handles
 * them (RTP headers travel in the clear in SRTP), for the load generators of the engine and
 * capacity benches. The media itself is then dropped: a load generator need not decrypt what it
 * only times, and decrypting would cost it the CPU that keeps its timestamps honest. STUN
 * (consent) and DTLS still reach werift, so the server sees a live peer.
 */
import type { Socket } from 'node:dgram';
import type { RTCPeerConnection } from 'werift';

/** werift internals reached to timestamp datagrams at the socket. */
interface WithSockets {
  connection: {
    protocols?: Array<{
      transport?: { socket?: Socket; onData: (data: Buffer, addr: unknown) => void };
    }>;
  };
}

/** RTP and RTCP datagrams start with version 2 (RFC 7983: first byte 128–191). */
const isRtpOrRtcp = (data: Buffer): boolean =>
  data.length > 0 && data[0]! >= 128 && data[0]! <= 191;

/**
 * Calls `onFrame(performance.now(), rtpTimestamp)` for every PCMU (payload type 0) RTP datagram
 * reaching `peer`'s sockets while `recording()` is true, and stops werift from handling RTP and
 * RTCP. Call it once the peer is connected.
 */
export function timeArrivals(
  peer: RTCPeerConnection,
  recording: () => boolean,
  onFrame: (at: number, rtp: number) => void,
): void {
  for (const transport of peer.iceTransports as unknown as WithSockets[]) {
    for (const protocol of transport.connection.protocols ?? []) {
      const udp = protocol.transport;
      if (!udp) continue;
      udp.socket?.prependListener('message', (data: Buffer) => {
        if (!recording() || data.length < 12 || data[0]! >> 6 !== 2) return;
        if ((data[1]! & 0x7f) !== 0) return;
        onFrame(performance.now(), data.readUInt32BE(4));
      });
      const receive = udp.onData;
      udp.onData = (data, addr) => {
        if (!isRtpOrRtcp(data)) receive(data, addr);
      };
    }
  }
}
