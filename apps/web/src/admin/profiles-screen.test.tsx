/**
 * Admin › Profiles and the tag editor (issue 37 item 4): create with ordered tags, reorder with
 * Move up / Move down, the colour's contrast said as it is picked (WCAG 2: #1a73e8 under white
 * text is 4.51:1, readable; #7a7a7a under dark text 4.30:1, too low), and the server's sentence.
 */
import { fireEvent, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { adminUnderTest, expectNoAxeViolations } from '../test-support/admin-under-test';
import { rowCells } from './row-cells';

/** WCAG 2 contrast of white (luminance 1) on an sRGB colour, from the definition. */
function contrastWithWhite(hex: string): number {
  const channel = (i: number) => {
    const c = parseInt(hex.slice(1 + 2 * i, 3 + 2 * i), 16) / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  const l = 0.2126 * channel(0) + 0.7152 * channel(1) + 0.0722 * channel(2);
  return 1.05 / (l + 0.05);
}

/** A whole console typed into by a person: slower than the default 5 s on a busy machine. */
const SLOW = { timeout: 30_000 };

describe('Admin › Profiles', () => {
  it('knows the WCAG contrast the expectations below rest on', () => {
    expect(contrastWithWhite('#1a73e8')).toBeCloseTo(4.51, 2);
  });

  it('creates a profile with two tags in the order they were arranged', SLOW, async () => {
    const t = await adminUnderTest();
    t.admin.teams = [
      { id: 51, name: 'Sales', member_count: 2, created_at: '2026-11-20T09:30:00Z' },
    ];
    const area = await t.openAdmin('Profiles');
    await t.user.click(await within(area).findByRole('button', { name: 'New profile' }));
    const form = within(area).getByRole('form', { name: 'New profile' });
    await t.user.type(within(form).getByLabelText('Name'), 'Solar leads');
    await within(form).findByRole('option', { name: 'Sales' });
    await t.user.selectOptions(within(form).getByLabelText('Team'), 'Sales');
    await t.user.type(within(form).getByLabelText('Ring timeout (seconds)'), '25');
    await t.user.click(within(form).getByLabelText(/Whisper text/));

    await t.user.click(within(form).getByRole('button', { name: 'Add tag' }));
    // The new tag's name field takes focus; its key follows the name.
    expect(within(form).getByLabelText('Tag 1 name')).toHaveFocus();
    await t.user.keyboard('Hot lead');
    expect(within(form).getByLabelText('Tag 1 key')).toHaveValue('hot-lead');
    await t.user.click(within(form).getByRole('button', { name: 'Add tag' }));
    await t.user.keyboard('Callback');
    const hex = within(form).getByLabelText('Tag 2 colour (hex)');
    await t.user.clear(hex);
    await t.user.type(hex, '#d93025');

    // Callback goes first; focus stays on the moved tag's button.
    await t.user.click(within(form).getByRole('button', { name: 'Move up Callback' }));
    expect(within(form).getByLabelText('Tag 1 name')).toHaveValue('Callback');
    expect(within(form).getByLabelText('Tag 2 name')).toHaveValue('Hot lead');
    expect(within(form).getByRole('button', { name: 'Move down Callback' })).toHaveFocus();
    await expectNoAxeViolations(area);

    await t.user.click(within(form).getByRole('button', { name: 'Create profile' }));
    expect(t.bodiesTo('POST', '/api/v1/admin/profiles')).toEqual([
      {
        name: 'Solar leads',
        is_deal_whispertext: true,
        auto_answer: true,
        ring_timeout_seconds: 25,
        team_id: 51,
        tags: [
          { key: 'callback', name: 'Callback', color: '#d93025' },
          { key: 'hot-lead', name: 'Hot lead', color: '#1a73e8' },
        ],
      },
    ]);
    expect(await within(area).findByRole('status')).toHaveTextContent(
      'Profile Solar leads created.',
    );
    const table = await within(area).findByRole('table', { name: 'Profiles' });
    await within(table).findByRole('rowheader', { name: 'Solar leads' });
    expect(rowCells(table, 'Solar leads')).toEqual([
      'Solar leads',
      'Sales',
      'Auto answer, rings 25 s, whisper text',
      'CallbackHot lead',
    ]);
    expect(within(table).getByRole('list', { name: 'Tags of Solar leads' })).toBeVisible();
  });

  it('moves tags down, removes them, and keeps the order it shows', async () => {
    const t = await adminUnderTest();
    t.admin.profiles = [
      {
        id: 12,
        name: 'Inbound',
        is_deal_whispertext: false,
        auto_answer: true,
        ring_timeout_seconds: null,
        team_id: null,
        hours: null,
        tags: [
          { key: 'a', name: 'Alpha', color: '#1a73e8' },
          { key: 'b', name: 'Bravo', color: '#d93025' },
          { key: 'c', name: 'Charlie', color: '#13773a' },
        ],
        created_at: '2026-11-20T09:30:00Z',
      },
    ];
    const area = await t.openAdmin('Profiles');
    await t.user.click(await within(area).findByRole('button', { name: 'Edit Inbound' }));
    const form = within(area).getByRole('form', { name: 'Edit Inbound' });
    expect(within(form).getByRole('button', { name: 'Move up Alpha' })).toBeDisabled();
    expect(within(form).getByRole('button', { name: 'Move down Charlie' })).toBeDisabled();
    await t.user.click(within(form).getByRole('button', { name: 'Move down Alpha' }));
    await t.user.click(within(form).getByRole('button', { name: 'Move down Alpha' }));
    // At the bottom its Move down is disabled: focus goes to its Move up.
    expect(within(form).getByRole('button', { name: 'Move up Alpha' })).toHaveFocus();
    await t.user.click(within(form).getByRole('button', { name: 'Remove Bravo' }));
    await t.user.click(within(form).getByRole('button', { name: 'Save' }));
    const [body] = t.bodiesTo('PATCH', '/api/v1/admin/profiles/12');
    expect((body as { tags: Array<{ key: string }> }).tags.map((tag) => tag.key)).toEqual([
      'c',
      'a',
    ]);
    expect(body).not.toHaveProperty('hours');
  });

  it('says the contrast as the colour is picked: readable, too low', async () => {
    const t = await adminUnderTest();
    const area = await t.openAdmin('Profiles');
    await t.user.click(await within(area).findByRole('button', { name: 'New profile' }));
    const form = within(area).getByRole('form', { name: 'New profile' });
    await t.user.click(within(form).getByRole('button', { name: 'Add tag' }));
    await t.user.keyboard('Hot');
    const picker = within(form).getByLabelText('Tag 1 colour picker');
    const hex = within(form).getByLabelText('Tag 1 colour (hex)');
    const contrast = () => hex.getAttribute('aria-describedby')!;
    const said = () => document.getElementById(contrast())?.textContent;

    fireEvent.input(picker, { target: { value: '#1a73e8' } });
    expect(said()).toBe('Contrast 4.5:1 — readable');
    expect(hex).toHaveValue('#1a73e8');
    const chip = within(form).getByText('Hot', { selector: '.tag-chip' });
    expect(chip).toHaveStyle({ backgroundColor: 'rgb(26, 115, 232)', color: 'rgb(255, 255, 255)' });

    fireEvent.input(picker, { target: { value: '#7a7a7a' } });
    expect(said()).toBe('Contrast 4.3:1 — too low: pick a darker or lighter colour');
    expect(chip).toHaveStyle({ color: 'rgb(17, 20, 24)' });

    await t.user.clear(hex);
    await t.user.type(hex, '#111');
    expect(picker).toHaveValue('#111111');
    expect(said()).toMatch(/^Contrast \d+\.\d:1 — readable$/);
  });

  it("shows the server's sentence for a colour it refuses", async () => {
    const t = await adminUnderTest();
    const area = await t.openAdmin('Profiles');
    await t.user.click(await within(area).findByRole('button', { name: 'New profile' }));
    const form = within(area).getByRole('form', { name: 'New profile' });
    await t.user.type(within(form).getByLabelText('Name'), 'Grey');
    await t.user.click(within(form).getByRole('button', { name: 'Add tag' }));
    await t.user.keyboard('Meh');
    const hex = within(form).getByLabelText('Tag 1 colour (hex)');
    await t.user.clear(hex);
    await t.user.type(hex, '#7a7a7a{Enter}');
    const alert = await within(area).findByRole('alert');
    expect(alert).toHaveTextContent('The tag colour is too close to mid-grey');
    expect(alert).toHaveFocus();
    expect(t.admin.profiles).toHaveLength(0);
  });
});
