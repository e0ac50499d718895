/**
 * The answers' schemas (what the contract test holds the web console's fake server and the real
 * server to, `contract/fake-api.contract.test.ts`): every answer they accept is the type the
 * console reads, and they refuse an answer with a field missing, mistyped or unknown.
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { z } from 'zod';
import type { RealtimeSettings } from '../realtime/realtime-settings';
import type { RealtimeSettingsSchema, UserResponse, UserResponseSchema } from './auth';
import { CallSchema, CallUserResponseSchema, type Call, type CallUserResponse } from './calls';
import type { HistoryPageSchema, HistoryRow } from './history';
import { OutboundCallResponseSchema, type OutboundCallResponse } from './outbound';
import type { Paged } from './paging';
import type { AgentRow, AgentsPageSchema } from './users';

/** A call as the server sends it for a lead rung to an agent. */
const CALL = {
  id: 1,
  type: 'lead',
  direction: 'outbound',
  status: 'ringing',
  lead: {
    id: 7,
    label: 'Jordan Miles',
    fname: 'Jordan',
    lname: 'Miles',
    name: 'Jordan Miles',
    phone_number: '+15550100042',
    phone_number_formatted: '+1 555 010 0042',
    company: null,
    email: null,
    category: null,
    crm: null,
    source_id: null,
    profile_picture: null,
  },
  lead_id: 7,
  account_id: 1,
  profile_id: 1,
  profile: {
    id: 1,
    is_deal_whispertext: true,
    auto_answer: true,
    tags: [{ id: 1, key: 'hot', name: 'Hot lead', color: '#d93025' }],
  },
  number: { name: 'Main line', account_id: 1, phone_number_formatted: '+1 555 014 2000' },
  phone_number: '+15550100042',
  phone_number_formatted: '+1 555 010 0042',
  seconds_since_started_at: 0,
  held: false,
  agent_name: null,
};

describe('the answers the console reads', () => {
  it('are the console’s types once parsed', () => {
    expectTypeOf<z.infer<typeof CallSchema>>().toExtend<Call>();
    expectTypeOf<z.infer<typeof CallUserResponseSchema>>().toExtend<CallUserResponse>();
    expectTypeOf<z.infer<typeof OutboundCallResponseSchema>>().toExtend<OutboundCallResponse>();
    expectTypeOf<z.infer<typeof UserResponseSchema>>().toExtend<UserResponse>();
    expectTypeOf<z.infer<typeof RealtimeSettingsSchema>>().toEqualTypeOf<RealtimeSettings>();
    expectTypeOf<z.infer<typeof AgentsPageSchema>>().toEqualTypeOf<Paged<AgentRow>>();
    expectTypeOf<z.infer<typeof HistoryPageSchema>>().toEqualTypeOf<Paged<HistoryRow>>();
    expect(CallSchema.parse(CALL)).toEqual(CALL);
  });

  it('refuse a call without its profile, naming the field', () => {
    const { profile: _, ...withoutProfile } = CALL;
    const result = CallSchema.safeParse(withoutProfile);
    expect(result.error?.issues.map((issue) => issue.path.join('.'))).toEqual(['profile']);
  });

  it('refuse a mistyped field deep inside, and a field the server does not send', () => {
    const mistyped = {
      ...CALL,
      profile: { ...CALL.profile, tags: [{ ...CALL.profile.tags[0], id: '1' }] },
    };
    expect(CallSchema.safeParse(mistyped).error?.issues[0]?.path).toEqual([
      'profile',
      'tags',
      0,
      'id',
    ]);
    const extra = CallUserResponseSchema.safeParse({
      call: { ...CALL, recording: null },
      type: 'lead',
      autoaccept: false,
    });
    expect(extra.error?.issues[0]).toMatchObject({ code: 'unrecognized_keys', path: ['call'] });
  });

  it('take New Call’s answer only with the whole call, its lead and number included', () => {
    const answer = { success: true, call_user_id: 70, call: CALL };
    expect(OutboundCallResponseSchema.safeParse(answer).success).toBe(true);
    const narrow = { ...answer, call: { id: 1, lead: CALL.lead, phone_number: CALL.phone_number } };
    expect(OutboundCallResponseSchema.safeParse(narrow).success).toBe(false);
    const noLead = { ...answer, call: { ...CALL, lead: null } };
    expect(OutboundCallResponseSchema.safeParse(noLead).error?.issues[0]?.path).toEqual([
      'call',
      'lead',
    ]);
  });
});
