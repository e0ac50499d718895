import type { OutboundCallResponse } from '@leadline/contracts';
import { describe, expect, it } from 'vitest';
import { demoCallUser, demoLead, demoUser } from '../test-support/fake-api';
import { wantsTags } from './call-rules';
import {
  callerIdLabel,
  outboundCallBody,
  outboundConnectParams,
  outboundConsoleCall,
  parseTelLink,
  type ChosenCallerId,
} from './outbound-call';
import { TEL_HANDLER_URL_TEMPLATE } from '../constants';

const LINE = { id: 3, name: 'Acme Solar main line', phone_number_formatted: '+1 555 014 2000' };
const CHOSEN: ChosenCallerId = { number: LINE, e164: '+15550142000' };
const LEAD = demoLead({ id: 5, phone_number: '+442079460958' });
const TAG = { id: 1, key: 'demo', name: 'Demo booked', color: '#2e7d32' };
const ANSWER: OutboundCallResponse = {
  success: true,
  call_user_id: 812,
  call: {
    ...demoCallUser().call,
    id: 77,
    status: 'queued',
    lead: LEAD,
    lead_id: 5,
    phone_number: '+442079460958',
    profile: { id: 12, is_deal_whispertext: true, auto_answer: true, tags: [TAG] },
    number: {
      name: LINE.name,
      account_id: 100,
      phone_number_formatted: LINE.phone_number_formatted,
    },
  },
};

describe('outbound call: body and connect params (spec section 7)', () => {
  it('posts names, the number and the agent id; interface desktop only from the desktop wrapper', () => {
    const request = { fname: ' Jo ', lname: 'Lee ', phoneNumber: '+442079460958', callerId: null };
    expect(outboundCallBody(request, demoUser(), true)).toEqual({
      fname: 'Jo',
      lname: 'Lee',
      phone_number: '+442079460958',
      agent_id: 7,
      interface: 'desktop',
    });
    expect(outboundCallBody(request, demoUser(), false)).toEqual({
      fname: 'Jo',
      lname: 'Lee',
      phone_number: '+442079460958',
      agent_id: 7,
    });
    expect(outboundCallBody({ ...request, callerId: CHOSEN }, demoUser(), false).caller_id).toBe(3);
  });

  it('connects with call_user_id, To and (when chosen) callerId', () => {
    expect(outboundConnectParams(ANSWER, null)).toEqual({
      call_user_id: '812',
      To: '+442079460958',
    });
    expect(outboundConnectParams(ANSWER, CHOSEN)).toEqual({
      call_user_id: '812',
      To: '+442079460958',
      callerId: '+15550142000',
    });
  });

  it('turns the answer into the console’s outbound lead call, the answer’s call as it is', () => {
    const call = outboundConsoleCall(ANSWER);
    expect(call).toMatchObject({ callUserId: 812, type: 'lead', autoaccept: false });
    expect(call.call).toEqual(ANSWER.call);
  });

  it('keeps the profile: Contacted on a profile flagged is_deal_whispertext wants Tags & Stages', () => {
    expect(wantsTags(outboundConsoleCall(ANSWER))).toBe(true);
    const untagged = { ...ANSWER, call: { ...ANSWER.call, profile: null } };
    expect(wantsTags(outboundConsoleCall(untagged))).toBe(false);
  });
});

describe('Caller ID labels (spec section 2)', () => {
  it('shows a name of up to 40 characters whole', () => {
    expect(callerIdLabel(LINE)).toBe('Acme Solar main line: +1 555 014 2000');
    const forty = 'x'.repeat(40);
    expect(callerIdLabel({ ...LINE, name: forty })).toBe(`${forty}: +1 555 014 2000`);
  });

  it("cuts a longer name to 40 characters and '...'", () => {
    expect(callerIdLabel({ ...LINE, name: 'y'.repeat(41) })).toBe(
      `${'y'.repeat(40)}...: +1 555 014 2000`,
    );
  });
});

describe('tel: launch links (spec sections 2 and 5)', () => {
  it.each([
    ['http://x.test/?url=tel:/%2B14155550132', '+14155550132'],
    ['http://x.test/?url=tel://+1-415-555-0132', '+14155550132'],
    ['http://x.test/?url=tel:/(415)%20555-0132', '4155550132'],
    ['http://x.test/?url=TEL:/+44%2020%207946%200958&x=1', '+442079460958'],
  ])('%s opens New Call with %s', (url, number) => {
    expect(parseTelLink(url)).toEqual({ kind: 'call', number });
  });

  it.each([
    ['http://x.test/?url=tel:4155550132', 'The url parameter must start with tel:/.'],
    ['http://x.test/?url=https://evil.test', 'The url parameter must start with tel:/.'],
    ['http://x.test/?url=tel:/abc', 'The tel: link has no phone number.'],
  ])('refuses %s', (url, reason) => {
    expect(parseTelLink(url)).toEqual({ kind: 'invalid', reason });
  });

  it.each([
    ['tel:+15550100142', '+15550100142'],
    ['tel:(555) 010-0142', '5550100142'],
    ['tel://+44-20-7946-0958', '+442079460958'],
  ])(
    'reads %s as the tel: handler delivers it (Settings registers /?url=tel:/%%s)',
    (link, number) => {
      // What the browser opens for a link once Leadline handles tel: (the HTML standard's
      // registerProtocolHandler: %s is the link, percent-encoded as a URL component).
      const opened = new URL(
        TEL_HANDLER_URL_TEMPLATE.replace('%s', encodeURIComponent(link)),
        'https://console.test',
      ).href;
      expect(parseTelLink(opened)).toEqual({ kind: 'call', number });
    },
  );

  it('is nothing without a url parameter', () => {
    expect(parseTelLink('http://x.test/')).toEqual({ kind: 'none' });
    expect(parseTelLink('not a url')).toEqual({ kind: 'none' });
  });
});
