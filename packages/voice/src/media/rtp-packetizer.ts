import { RtpHeader, RtpPacket } from 'werift';
import { PCMU_PAYLOAD_TYPE } from '../constants';

/** Options of an {@link RtpPacketizer}. */
export interface RtpPacketizerOptions {
  /** SSRC of the stream (werift's sender stamps its own on the wire). */
  ssrc: number;
  /** Payload type; default PCMU (0). */
  payloadType?: number;
  /** Random source for the initial sequence number and timestamp (RFC 3550 §5.1); default `Math.random`. */
  random?: () => number;
}

/**
 * Numbers outgoing RTP packets of one stream: sequence numbers step by one, timestamps by the
 * samples in each packet, both from random starting points (RFC 3550 §5.1); the first packet of
 * the stream carries the marker bit (RFC 3551 §4.1, start of a talkspurt).
 */
export class RtpPacketizer {
  private sequenceNumber: number;
  private timestamp: number;
  private first = true;
  private readonly payloadType: number;
  private readonly ssrc: number;

  /** Creates the packetizer of a new stream. */
  constructor(options: RtpPacketizerOptions) {
    const random = options.random ?? Math.random;
    this.sequenceNumber = Math.floor(random() * 0x1_0000) & 0xffff;
    this.timestamp = Math.floor(random() * 0x1_0000_0000) >>> 0;
    this.payloadType = options.payloadType ?? PCMU_PAYLOAD_TYPE;
    this.ssrc = options.ssrc >>> 0;
  }

  /** Moves the timestamp past `samples` samples that will not be sent (the sequence stays). */
  skip(samples: number): void {
    this.timestamp = (this.timestamp + samples) >>> 0;
  }

  /** Wraps `payload`, which holds `samples` samples, in the stream's next RTP packet. */
  packetize(payload: Buffer, samples: number): RtpPacket {
    const header = new RtpHeader({
      payloadType: this.payloadType,
      sequenceNumber: this.sequenceNumber,
      timestamp: this.timestamp,
      ssrc: this.ssrc,
      marker: this.first,
    });
    this.first = false;
    this.sequenceNumber = (this.sequenceNumber + 1) & 0xffff;
    this.timestamp = (this.timestamp + samples) >>> 0;
    return new RtpPacket(header, payload);
  }
}
