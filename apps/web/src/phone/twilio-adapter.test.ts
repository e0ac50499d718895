import { describe, expect, it } from 'vitest';
import { edgeOptions } from './twilio-adapter';

const sounds = {} as Parameters<typeof edgeOptions>[0]['sounds'];

describe('where the official SDK connects', () => {
  it('the embedded engine on the page host, with no insights upload', () => {
    expect(edgeOptions({ sdk: 'twilio', sounds }, 'calls.example.com:3443')).toEqual({
      chunderw: 'calls.example.com:3443',
      publishEvents: false,
    });
  });

  it("Twilio's own edge with TELEPHONY_PROVIDER=twilio: none of the overrides", () => {
    expect(edgeOptions({ sdk: 'twilio', sounds, edge: 'twilio' }, 'calls.example.com')).toEqual({});
  });
});
