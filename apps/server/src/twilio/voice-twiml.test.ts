/** The TwiML answers, parsed back and compared verb by verb, attribute by attribute. */
import { XMLParser } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { joinConference, refuseCall } from './voice-twiml';

const parse = (xml: string) =>
  new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@' }).parse(xml) as unknown;

describe('TwiML', () => {
  it('joins the call’s named conference, recorded, with status and recording callbacks', () => {
    const xml = joinConference('CA-call-1', {
      publicBaseUrl: 'https://calls.example.com',
      record: true,
      callerId: '+15550142000',
    });
    expect(xml.startsWith('<?xml version="1.0" encoding="UTF-8"?>')).toBe(true);
    expect(parse(xml)).toMatchObject({
      Response: {
        Dial: {
          '@callerId': '+15550142000',
          Conference: {
            '#text': 'CA-call-1',
            '@startConferenceOnEnter': 'true',
            '@endConferenceOnExit': 'false',
            '@beep': 'false',
            '@statusCallback': 'https://calls.example.com/twilio/status',
            '@statusCallbackEvent': 'start end join leave mute hold',
            '@record': 'record-from-start',
            '@recordingStatusCallback': 'https://calls.example.com/twilio/recording',
            '@recordingStatusCallbackEvent': 'completed',
          },
        },
      },
    });
  });

  it('does not record unless asked, and names no caller ID without one', () => {
    const conference = parse(
      joinConference('CA-2', { publicBaseUrl: 'https://c.example', record: false }),
    ) as { Response: { Dial: Record<string, unknown> & { Conference: Record<string, unknown> } } };
    expect(conference.Response.Dial['@callerId']).toBeUndefined();
    expect(conference.Response.Dial.Conference['@record']).toBeUndefined();
    expect(conference.Response.Dial.Conference['#text']).toBe('CA-2');
  });

  it('refuses with a spoken reason and hangs up; text is escaped', () => {
    expect(parse(refuseCall('No agents <now> & later.'))).toEqual({
      '?xml': { '@version': '1.0', '@encoding': 'UTF-8' },
      Response: { Say: 'No agents <now> & later.', Hangup: '' },
    });
    expect(refuseCall('<script>')).toContain('&lt;script&gt;');
  });
});
