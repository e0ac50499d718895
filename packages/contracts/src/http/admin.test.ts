import { describe, expect, it } from 'vitest';
import { tagTextContrast } from '../lib/colour-contrast';
import {
  AdminAccountUpdateBody,
  AdminProfileCreateBody,
  AdminUserCreateBody,
  TagColour,
} from './admin';
import { passwordWeakness } from './admin-constants';

const firstMessage = (result: { success: boolean; error?: { issues: { message: string }[] } }) =>
  result.success ? null : result.error!.issues[0]!.message;

describe('passwordWeakness', () => {
  it('accepts a long, varied password', () => {
    expect(passwordWeakness('correct horse battery staple', 'ops@example.com')).toBeNull();
  });

  it.each([
    ['short1!', 'The password must be at least 12 characters.'],
    ['aaaaaaaaaaaaaaaa', 'The password must use at least 5 different characters.'],
    ['abababababababab', 'The password must use at least 5 different characters.'],
    ['123456789012345', 'The password may not be only digits.'],
    ['x'.repeat(201), 'The password may not be longer than 200 characters.'],
  ])('refuses %j', (password, sentence) => {
    expect(passwordWeakness(password)).toBe(sentence);
  });

  it('refuses a password that holds the e-mail address or its name', () => {
    expect(passwordWeakness('Jordan.Admin@example.com', 'jordan.admin@example.com')).toBe(
      'The password may not contain the e-mail address.',
    );
    expect(passwordWeakness('my jordan.admin pass 2026', 'jordan.admin@example.com')).toBe(
      'The password may not contain the e-mail address.',
    );
  });
});

describe('tag colours', () => {
  // WCAG 2: #767676 on white is the well-known 4.54:1; mid-greys near #7a7a7a reach neither
  // dark nor light text at 4.5:1.
  it('measures the readable text on the colour', () => {
    expect(tagTextContrast('#767676')).toBeCloseTo(4.54, 2);
    expect(tagTextContrast('#ffffff')).toBeGreaterThan(15);
    expect(tagTextContrast('red-ish')).toBeNull();
  });

  it('refuses a colour neither text colour reads on, with a sentence', () => {
    expect(firstMessage(TagColour.safeParse('#7a7a7a'))).toMatch(
      /^The tag colour is too close to mid-grey/,
    );
    expect(firstMessage(TagColour.safeParse('blue'))).toBe(
      'The tag colour must be a hex colour such as #1a73e8.',
    );
    expect(TagColour.parse('#1A73E8')).toBe('#1a73e8');
  });

  it('keeps the tags of a profile in order and refuses a key twice', () => {
    const tags = [
      { key: 'b', name: 'B', color: '#000000' },
      { key: 'a', name: 'A', color: '#ffffff' },
    ];
    expect(AdminProfileCreateBody.parse({ name: 'P', tags }).tags.map((t) => t.key)).toEqual([
      'b',
      'a',
    ]);
    expect(
      firstMessage(AdminProfileCreateBody.safeParse({ name: 'P', tags: [tags[0], tags[0]] })),
    ).toBe('Each tag key may appear once in a profile.');
  });
});

describe('admin bodies', () => {
  it('names the field of a bad user', () => {
    expect(
      firstMessage(
        AdminUserCreateBody.safeParse({ full_name: 'A', email: 'not-mail', role: 'agent' }),
      ),
    ).toBe('The email must be a valid email address.');
    expect(
      firstMessage(
        AdminUserCreateBody.safeParse({ full_name: 'A', email: 'a@b.co', role: 'owner' }),
      ),
    ).toBe('The role must be admin, supervisor or agent.');
    expect(
      firstMessage(
        AdminUserCreateBody.safeParse({
          full_name: 'A',
          email: 'a@b.co',
          role: 'agent',
          permissions: ['app-sms', 'root'],
        }),
      ),
    ).toMatch(/^The permissions may only be app-sms, app-retry/);
  });

  it('refuses unknown fields and unknown time zones', () => {
    expect(AdminAccountUpdateBody.safeParse({ owner: 1 }).success).toBe(false);
    expect(firstMessage(AdminAccountUpdateBody.safeParse({ time_zone: 'Mars/Olympus' }))).toBe(
      'The time zone must be an IANA time zone, such as America/New_York.',
    );
    expect(AdminAccountUpdateBody.parse({ time_zone: 'Europe/Paris' }).time_zone).toBe(
      'Europe/Paris',
    );
  });
});
