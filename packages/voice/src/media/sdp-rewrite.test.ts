import { describe, expect, it } from 'vitest';
import { stripWideTelephoneEvents } from './sdp-rewrite';

const chromeOffer = [
  'v=0',
  'o=- 4611731400430051336 2 IN IP4 127.0.0.1',
  's=-',
  't=0 0',
  'a=group:BUNDLE 0',
  'm=audio 9 UDP/TLS/RTP/SAVPF 111 63 9 0 8 13 110 126',
  'c=IN IP4 0.0.0.0',
  'a=rtpmap:111 opus/48000/2',
  'a=rtcp-fb:111 transport-cc',
  'a=fmtp:111 minptime=10;useinbandfec=1',
  'a=rtpmap:63 red/48000/2',
  'a=fmtp:63 111/111',
  'a=rtpmap:9 G722/8000',
  'a=rtpmap:0 PCMU/8000',
  'a=rtpmap:8 PCMA/8000',
  'a=rtpmap:13 CN/8000',
  'a=rtpmap:110 telephone-event/48000',
  'a=rtpmap:126 telephone-event/8000',
  '',
].join('\r\n');

describe('stripWideTelephoneEvents', () => {
  it('removes telephone-event/48000 and keeps /8000', () => {
    const stripped = stripWideTelephoneEvents(chromeOffer);
    expect(stripped).toContain('m=audio 9 UDP/TLS/RTP/SAVPF 111 63 9 0 8 13 126\r\n');
    expect(stripped).not.toContain('telephone-event/48000');
    expect(stripped).toContain('a=rtpmap:126 telephone-event/8000');
    expect(stripped).toContain('a=fmtp:111 minptime=10;useinbandfec=1');
    expect(stripped.split('\r\n')).toHaveLength(chromeOffer.split('\r\n').length - 1);
  });

  it('removes the fmtp and rtcp-fb lines of the dropped payload type too', () => {
    const sdp = chromeOffer.replace(
      'a=rtpmap:110 telephone-event/48000',
      'a=rtpmap:110 telephone-event/48000\r\na=fmtp:110 0-16',
    );
    expect(stripWideTelephoneEvents(sdp)).not.toMatch(/:110 /);
  });

  it('leaves an SDP without wide telephone-events unchanged, whatever its line endings', () => {
    const plain = chromeOffer
      .replace('a=rtpmap:110 telephone-event/48000\r\n', '')
      .replace(' 110 126', ' 126');
    expect(stripWideTelephoneEvents(plain)).toBe(plain);
    const unix = chromeOffer.replaceAll('\r\n', '\n');
    expect(stripWideTelephoneEvents(unix)).toContain('SAVPF 111 63 9 0 8 13 126\n');
  });

  it('touches only audio sections', () => {
    const withVideo = `${chromeOffer}m=video 9 UDP/TLS/RTP/SAVPF 110\r\na=rtpmap:110 VP8/90000\r\n`;
    const stripped = stripWideTelephoneEvents(withVideo);
    expect(stripped).toContain('m=video 9 UDP/TLS/RTP/SAVPF 110\r\na=rtpmap:110 VP8/90000');
    expect(stripped).not.toContain('telephone-event/48000');
  });
});
