import { isIPv4, isIPv6 } from 'node:net';
import { networkInterfaces } from 'node:os';
import {
  RTCDtlsTransport,
  RTCPeerConnection,
  RTCRtpCodecParameters,
  type RTCCertificate,
  type RTCPeerConnectionConfig,
} from 'werift';
import {
  PCMU_PAYLOAD_TYPE,
  SAMPLE_RATE_HZ,
  TELEPHONE_EVENT_CLOCK_RATE_HZ,
  TELEPHONE_EVENT_PAYLOAD_TYPE,
} from '../constants';
import { disableDefaultStunServer, ignoreRepeatedHelloVerifyRequests } from './werift-internals';
import { fastRtpHeaderParse, leanAudioReceive } from './werift-fast-paths';

/** Makes the werift peer connections of one worker. */
export interface PeerFactory {
  /** A new peer connection configured for the engine's legs. */
  create(): RTCPeerConnection;
}

/** The audio codecs every leg negotiates, in preference order: PCMU, then telephone-event/8000. */
export function engineAudioCodecs(): RTCRtpCodecParameters[] {
  return [
    new RTCRtpCodecParameters({
      mimeType: 'audio/PCMU',
      clockRate: SAMPLE_RATE_HZ,
      channels: 1,
      payloadType: PCMU_PAYLOAD_TYPE,
    }),
    new RTCRtpCodecParameters({
      mimeType: 'audio/telephone-event',
      clockRate: TELEPHONE_EVENT_CLOCK_RATE_HZ,
      channels: 1,
      payloadType: TELEPHONE_EVENT_PAYLOAD_TYPE,
      parameters: '0-16',
    }),
  ];
}

/**
 * werift configuration of a leg.
 *
 * ICE: werift's host candidates are every non-internal interface address (`iceUseIpv4`,
 * `iceUseIpv6`) plus `iceAdditionalHostAddresses`; `iceInterfaceAddresses` only filters that
 * list when something matches, and binds the sockets. To announce exactly `iceAddresses`, the
 * interface scan is switched off and the addresses are given as additional hosts. A socket is
 * bound to the address itself when it is the only one of its family on this machine (loopback
 * in tests), otherwise to the wildcard address (an address announced for NAT is not local).
 *
 * DTLS: one certificate for all legs of the worker (`certificates`), so no leg pays for key
 * generation.
 */
export function legPeerConfig(
  iceAddresses: readonly string[],
  certificate: RTCCertificate,
): RTCPeerConnectionConfig {
  const local = new Set(
    Object.values(networkInterfaces())
      .flatMap((entries) => entries ?? [])
      .map((entry) => entry.address),
  );
  const v4 = iceAddresses.filter((address) => isIPv4(address));
  const v6 = iceAddresses.filter((address) => isIPv6(address));
  const bindV4 = v4.length === 1 && v4[0] !== undefined && local.has(v4[0]) ? v4[0] : undefined;
  const bindV6 = v6.length === 1 && v6[0] !== undefined && local.has(v6[0]) ? v6[0] : undefined;
  return {
    codecs: { audio: engineAudioCodecs() },
    // No STUN server: the engine announces its own addresses (see `disableDefaultStunServer`).
    iceServers: [],
    iceUseIpv4: false,
    iceUseIpv6: false,
    iceUseTcp: false,
    iceAdditionalHostAddresses: [...iceAddresses],
    iceInterfaceAddresses: {
      ...(bindV4 === undefined ? {} : { udp4: bindV4 }),
      ...(bindV6 === undefined ? {} : { udp6: bindV6 }),
    },
    certificates: [certificate],
  };
}

/** Generates the worker's DTLS certificate once and returns a factory of configured peers. */
export async function createPeerFactory(iceAddresses: readonly string[]): Promise<PeerFactory> {
  disableDefaultStunServer();
  ignoreRepeatedHelloVerifyRequests();
  fastRtpHeaderParse();
  leanAudioReceive();
  const certificate = await RTCDtlsTransport.SetupCertificate();
  const config = legPeerConfig(iceAddresses, certificate);
  return {
    // Fresh codec objects per peer: werift keeps per-connection state on them.
    create: () => new RTCPeerConnection({ ...config, codecs: { audio: engineAudioCodecs() } }),
  };
}
