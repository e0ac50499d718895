import { act, render, screen, waitFor, within } from '@testing-library/react';
import { userEvent } from '@testing-library/user-event';
import { useState } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { WebError } from '../errors';
import { FakeClock } from '../test-support/fake-platform';
import { countryList, everyCountry } from './country-options';
import { PhoneInput, type PhoneInputProps, type PhoneInputValidation } from './phone-input';

type Props = Partial<Omit<PhoneInputProps, 'value' | 'onChange'>> & { initial?: string };

/** The input in a parent that keeps its text, recording every emitted result. */
function renderInput({ initial = '', ...props }: Props = {}) {
  const clock = new FakeClock();
  const results: { value: string; validation: PhoneInputValidation }[] = [];
  function Parent() {
    const [value, setValue] = useState(initial);
    return (
      <PhoneInput
        label="Phone Number"
        flags="emoji"
        timers={clock}
        {...props}
        value={value}
        onChange={(next, validation) => {
          results.push({ value: next, validation });
          setValue(next);
        }}
      />
    );
  }
  const user = userEvent.setup();
  render(<Parent />);
  const input = screen.getByRole('textbox', { name: 'Phone Number' });
  const combobox = screen.getByRole('combobox', { name: 'Country' });
  const last = () => {
    const result = results.at(-1);
    if (!result) throw new Error('nothing was emitted');
    return result.validation;
  };
  /** The name of the country the combobox shows. */
  const selected = () => combobox.querySelector('.sr-only')?.textContent;
  const active = () => {
    const id = combobox.getAttribute('aria-activedescendant');
    return id ? document.getElementById(id)?.textContent : null;
  };
  const focusCombobox = () => act(() => combobox.focus());
  return { user, clock, input, combobox, results, last, selected, active, focusCombobox };
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('PhoneInput: the field', () => {
  it("is a tel field with placeholder 'Enter a phone number' and max length 25", () => {
    const { input } = renderInput();
    expect(input).toHaveAttribute('type', 'tel');
    expect(input).toHaveAttribute('placeholder', 'Enter a phone number');
    expect(input).toHaveAttribute('maxlength', '25');
    expect(input).toHaveAttribute('autocomplete', 'tel');
    expect(screen.getByRole('group', { name: 'Phone Number' })).toContainElement(input);
  });

  it('starts with the default country (the user’s country_code), else the US', () => {
    const { combobox, selected } = renderInput({ defaultCountry: 'gb' });
    expect(selected()).toBe('United Kingdom +44');
    expect(combobox).toHaveAttribute('aria-expanded', 'false');
    expect(combobox).toHaveTextContent('+44');
  });

  it('falls back to the US for an unknown default country', () => {
    const { selected } = renderInput({ defaultCountry: 'ZZ' });
    expect(selected()).toBe('United States +1');
  });

  it('emits the validation result on every change, and once at the start', async () => {
    const { user, input, results, last } = renderInput({ defaultCountry: 'US' });
    expect(results).toHaveLength(1);
    expect(last()).toMatchObject({ valid: false, error: 'NOT_A_NUMBER', formatted: '' });
    await user.type(input, '4155550132');
    expect(results).toHaveLength(11);
    expect(results[3]?.validation).toMatchObject({ valid: false, nationalNumber: '415' });
    expect(last()).toMatchObject({
      countryCode: 'US',
      formatted: '(415) 555-0132',
      valid: true,
      possible: true,
      nationalNumber: '4155550132',
      e164: '+14155550132',
      error: null,
    });
    expect(last().country).toMatchObject({ iso2: 'US', name: 'United States', dialCode: '1' });
  });

  it('shows a valid number formatted, with the caret after its last digit', async () => {
    const { user, input } = renderInput({ defaultCountry: 'US' });
    await user.type(input, '4155550132');
    expect(input).toHaveValue('(415) 555-0132');
    expect((input as HTMLInputElement).selectionStart).toBe(14);
    await user.type(input, '9');
    expect(input).toHaveValue('(415) 555-01329');
  });

  it('accepts (415) 555-0132 as typed with the US selected', async () => {
    const { user, input, last } = renderInput({ defaultCountry: 'US' });
    await user.type(input, '(415) 555-0132');
    expect(input).toHaveValue('(415) 555-0132');
    expect(last()).toMatchObject({ valid: true, e164: '+14155550132' });
  });

  it('selects the country of a number typed with its calling code', async () => {
    const { user, input, last, selected } = renderInput({ defaultCountry: 'US' });
    await user.type(input, '+44 20 7946 0958');
    expect(selected()).toBe('United Kingdom +44');
    expect(input).toHaveValue('+44 20 7946 0958');
    expect(last()).toMatchObject({
      countryCode: 'GB',
      formatted: '+44 20 7946 0958',
      valid: true,
      nationalNumber: '2079460958',
      e164: '+442079460958',
    });
    expect(last().country.iso2).toBe('GB');
  });

  it('reads a national number with the selected country’s trunk prefix', async () => {
    const { user, input, last } = renderInput({ defaultCountry: 'DE' });
    await user.type(input, '03012345678');
    expect(input).toHaveValue('030 12345678');
    expect(last()).toMatchObject({ countryCode: 'DE', e164: '+493012345678' });
  });

  it('surfaces parse errors', async () => {
    const { user, input, last } = renderInput({ defaultCountry: 'US' });
    await user.type(input, '5');
    expect(last().error).toBe('TOO_SHORT');
    await user.clear(input);
    await user.type(input, '+999 1234');
    expect(last().error).toBe('INVALID_COUNTRY');
    await user.clear(input);
    await user.type(input, '2'.repeat(18));
    expect(last().error).toBe('TOO_LONG');
  });

  it.each([
    ['national', '+442079460958', '020 7946 0958'],
    ['international', '02079460958', '+44 20 7946 0958'],
    ['e.164', '020 7946 0958', '+442079460958'],
    ['rfc3966', '020 7946 0958', 'tel:+442079460958'],
    ['idd', '020 7946 0958', '020 7946 0958'],
    ['not-a-mode', '02079460958', '+44 20 7946 0958'],
  ])('mode %s formats %j as %j', async (mode, typed, formatted) => {
    const { user, input, last } = renderInput({ defaultCountry: 'GB', mode });
    await user.type(input, typed);
    expect(last().formatted).toBe(formatted);
    expect(input).toHaveValue(formatted);
  });

  it('does not swallow a space or an extension typed after a valid number', async () => {
    const { user, input, last } = renderInput({ defaultCountry: 'US', characters: 'any' });
    await user.type(input, '4155550132 x');
    expect(input).toHaveValue('(415) 555-0132 x');
    await user.type(input, '12');
    expect(last()).toMatchObject({ valid: true, extension: '12' });
    expect(input).toHaveValue('(415) 555-0132 x12');
  });

  it('leaves the text alone without auto-format', async () => {
    const { user, input, last } = renderInput({ defaultCountry: 'US', autoFormat: false });
    await user.type(input, '4155550132');
    expect(input).toHaveValue('4155550132');
    expect(last().formatted).toBe('(415) 555-0132');
  });
});

describe('PhoneInput: restricted characters and maximum length', () => {
  it('takes only digits, plus, parentheses, hyphen and whitespace by default', async () => {
    const { user, input } = renderInput({ defaultCountry: 'US' });
    await user.type(input, '4a1b5.c');
    expect(input).toHaveValue('415');
    await user.clear(input);
    await user.paste('tel: +1 (415) 555-0132');
    expect(input).toHaveValue('+1 415 555 0132');
  });

  it('keeps the caret where it was when a refused character is typed mid-text', async () => {
    const { user, input } = renderInput({ defaultCountry: 'US' });
    await user.type(input, '415555');
    const field = input as HTMLInputElement;
    field.setSelectionRange(3, 3);
    await user.keyboard('x');
    expect(input).toHaveValue('415555');
    expect(field.selectionStart).toBe(3);
  });

  it('a custom pattern refuses edits that do not match it', async () => {
    const { user, input } = renderInput({ defaultCountry: 'US', characters: /^\d*$/ });
    await user.type(input, '41-5 +');
    expect(input).toHaveValue('415');
  });

  it('any characters when asked', async () => {
    const { user, input, last } = renderInput({ defaultCountry: 'US', characters: 'any' });
    await user.type(input, '+1 415 555 0132 ext. 77');
    expect(input).toHaveValue('+1 415 555 0132 ext. 77');
    expect(last().extension).toBe('77');
  });

  it('stops at the maximum length (25 by default)', async () => {
    const { user, input } = renderInput({ defaultCountry: 'US' });
    await user.type(input, '1'.repeat(30));
    expect(input).toHaveValue('1'.repeat(25));
    await user.clear(input);
    await user.paste('2'.repeat(40));
    expect(input).toHaveValue('2'.repeat(25));
  });

  it('takes a smaller maximum length', async () => {
    const { user, input } = renderInput({ defaultCountry: 'US', maxLength: 10 });
    expect(input).toHaveAttribute('maxlength', '10');
    await user.type(input, '+44 20 7946 0958');
    expect(input).toHaveValue('+44 20 794');
  });
});

describe('PhoneInput: keyboard navigation of the country list', () => {
  const list = everyCountry();
  const name = (index: number) => `${list[index]!.name} +${list[index]!.dialCode}`;
  const indexOf = (iso2: string) => list.findIndex((c) => c.iso2 === iso2);

  it('ArrowDown opens the list on the selected country; arrows, Home/End, PageUp/PageDown move', async () => {
    const { user, combobox, active, focusCombobox } = renderInput({ defaultCountry: 'US' });
    focusCombobox();
    await user.keyboard('{ArrowDown}');
    expect(combobox).toHaveAttribute('aria-expanded', 'true');
    const listbox = screen.getByRole('listbox', { name: 'Countries' });
    expect(combobox).toHaveAttribute('aria-controls', listbox.id);
    expect(within(listbox).getAllByRole('option')).toHaveLength(245);
    expect(within(listbox).getByRole('option', { selected: true })).toHaveTextContent(
      'United States',
    );
    expect(active()).toContain('United States');
    await user.keyboard('{ArrowDown}');
    expect(active()).toContain(list[indexOf('US') + 1]!.name);
    await user.keyboard('{Home}');
    expect(active()).toContain(name(0));
    await user.keyboard('{ArrowUp}');
    expect(active()).toContain(name(0));
    await user.keyboard('{PageDown}');
    expect(active()).toContain(name(10));
    await user.keyboard('{PageUp}');
    expect(active()).toContain(name(0));
    await user.keyboard('{End}');
    expect(active()).toContain(name(244));
    await user.keyboard('{ArrowDown}');
    expect(active()).toContain(name(244));
    expect(combobox).toHaveFocus();
  });

  it('Enter picks the highlighted country, closes, and moves focus to the number', async () => {
    const { user, combobox, input, last, selected, focusCombobox } = renderInput({
      defaultCountry: 'US',
    });
    focusCombobox();
    await user.keyboard('{Enter}');
    expect(combobox).toHaveAttribute('aria-expanded', 'true');
    await user.keyboard('{Home}{Enter}');
    expect(combobox).toHaveAttribute('aria-expanded', 'false');
    expect(screen.queryByRole('listbox')).toBeNull();
    expect(selected()).toBe(name(0));
    expect(input).toHaveFocus();
    expect(last().country.iso2).toBe(list[0]!.iso2);
  });

  it('Space and Alt+ArrowUp open and pick too', async () => {
    const { user, combobox, selected, focusCombobox } = renderInput({ defaultCountry: 'US' });
    focusCombobox();
    await user.keyboard(' ');
    expect(combobox).toHaveAttribute('aria-expanded', 'true');
    await user.keyboard('{ArrowUp}{Alt>}{ArrowUp}{/Alt}');
    expect(combobox).toHaveAttribute('aria-expanded', 'false');
    expect(selected()).toBe(name(indexOf('US') - 1));
  });

  it('End on the closed combobox opens the list at the last country', async () => {
    const { user, active, focusCombobox } = renderInput({ defaultCountry: 'US' });
    focusCombobox();
    await user.keyboard('{End}');
    expect(active()).toContain('Zimbabwe');
  });

  it('Escape closes without changing the country and keeps focus on the combobox', async () => {
    const { user, combobox, results, selected, focusCombobox } = renderInput({
      defaultCountry: 'US',
    });
    focusCombobox();
    await user.keyboard('{ArrowDown}{Home}');
    await user.keyboard('{Escape}');
    expect(combobox).toHaveAttribute('aria-expanded', 'false');
    expect(selected()).toBe('United States +1');
    expect(combobox).toHaveFocus();
    expect(results).toHaveLength(1);
  });

  it('Tab closes without changing the country and moves on to the number', async () => {
    const { user, combobox, input, selected, focusCombobox } = renderInput({
      defaultCountry: 'US',
    });
    focusCombobox();
    await user.keyboard('{ArrowDown}{Home}');
    await user.tab();
    expect(combobox).toHaveAttribute('aria-expanded', 'false');
    expect(selected()).toBe('United States +1');
    expect(input).toHaveFocus();
  });

  it('a click outside closes the list; a click on an option picks it', async () => {
    const { user, combobox, selected } = renderInput({ defaultCountry: 'US' });
    await user.click(combobox);
    expect(combobox).toHaveAttribute('aria-expanded', 'true');
    await user.click(document.body);
    expect(combobox).toHaveAttribute('aria-expanded', 'false');
    expect(selected()).toBe('United States +1');
    await user.click(combobox);
    await user.click(screen.getByRole('option', { name: 'Germany +49' }));
    expect(selected()).toBe('Germany +49');
    expect(screen.queryByRole('listbox')).toBeNull();
  });

  it('moves a number written with a calling code to the country picked', async () => {
    const { user, input, combobox } = renderInput({ defaultCountry: 'US' });
    await user.type(input, '+44 20 7946 0958');
    await user.click(combobox);
    await user.click(screen.getByRole('option', { name: 'Germany +49' }));
    expect(input).toHaveValue('+49 2079 460958');
  });
});

describe('PhoneInput: type-to-find (700 ms reset)', () => {
  it('on the closed combobox, letters pick the country; 700 ms without a key start over', async () => {
    const { user, clock, selected, last, combobox, focusCombobox } = renderInput({
      defaultCountry: 'US',
    });
    focusCombobox();
    await user.keyboard('g');
    expect(selected()).toBe('Gabon +241');
    clock.tick(699);
    await user.keyboard('e');
    expect(selected()).toBe('Georgia +995');
    clock.tick(699);
    await user.keyboard('r');
    expect(selected()).toBe('Germany +49');
    expect(last().country.iso2).toBe('DE');
    expect(combobox).toHaveAttribute('aria-expanded', 'false');
    // Still within 700 ms: "germ" keeps Germany.
    clock.tick(699);
    await user.keyboard('m');
    expect(selected()).toBe('Germany +49');
    // 700 ms later the next letter starts a new search: M.
    clock.tick(700);
    await user.keyboard('m');
    expect(selected()).toBe('Macao SAR China +853');
    expect(combobox).toHaveFocus();
  });

  it('one letter again and again steps through the names starting with it', async () => {
    const { user, clock, selected, focusCombobox } = renderInput({ defaultCountry: 'US' });
    focusCombobox();
    await user.keyboard('s');
    expect(selected()).toBe('Samoa +685');
    await user.keyboard('s');
    expect(selected()).toBe('San Marino +378');
    clock.tick(700);
    await user.keyboard('s');
    expect(selected()).toBe('São Tomé & Príncipe +239');
  });

  it('on the open list, letters move the highlight; Enter picks it', async () => {
    const { user, clock, active, selected, focusCombobox } = renderInput({ defaultCountry: 'US' });
    focusCombobox();
    await user.keyboard('{ArrowDown}');
    await user.keyboard('u');
    // One letter steps on from the highlighted United States.
    expect(active()).toContain('Uruguay');
    clock.tick(700);
    await user.keyboard('uni');
    expect(active()).toContain('United Arab Emirates');
    await user.keyboard('ted k');
    expect(active()).toContain('United Kingdom');
    expect(selected()).toBe('United States +1');
    await user.keyboard('{Enter}');
    expect(selected()).toBe('United Kingdom +44');
  });
});

describe('PhoneInput: where the list opens (200 px threshold)', () => {
  function placeFieldWithSpaceBelow(spaceBelowPx: number) {
    const viewportHeightPx = 800;
    vi.spyOn(window, 'innerHeight', 'get').mockReturnValue(viewportHeightPx);
    vi.spyOn(HTMLElement.prototype, 'getBoundingClientRect').mockReturnValue(
      DOMRect.fromRect({ x: 0, y: viewportHeightPx - spaceBelowPx - 42, width: 320, height: 42 }),
    );
  }
  const placement = () => screen.getByRole('listbox').closest('[data-placement]');

  it.each([
    [201, 'below'],
    [200, 'above'],
    [500, 'below'],
    [40, 'above'],
  ])('with %i px below the field it opens %s', async (spaceBelowPx, expected) => {
    const { user, combobox } = renderInput({ defaultCountry: 'US' });
    placeFieldWithSpaceBelow(spaceBelowPx);
    await user.click(combobox);
    expect(placement()).toHaveAttribute('data-placement', expected);
  });
});

describe('PhoneInput: search', () => {
  it('opens with focus in the search box, which filters the list', async () => {
    const { user, combobox } = renderInput({ defaultCountry: 'US', search: true });
    await user.click(combobox);
    const searchBox = screen.getByRole('combobox', { name: 'Search countries' });
    expect(searchBox).toHaveFocus();
    expect(searchBox).toHaveAttribute('aria-controls', screen.getByRole('listbox').id);
    await user.type(searchBox, 'kingdom');
    expect(screen.getAllByRole('option').map((o) => o.textContent)).toEqual([
      '🇬🇧United Kingdom +44',
    ]);
    await user.clear(searchBox);
    await user.type(searchBox, '+44');
    expect(screen.getAllByRole('option')).toHaveLength(4);
    await user.clear(searchBox);
    await user.type(searchBox, 'zzz');
    expect(screen.queryAllByRole('option')).toEqual([]);
    expect(screen.getByRole('status')).toHaveTextContent('No countries found');
  });

  it('arrows and Enter pick from the results; focus goes to the number', async () => {
    const { user, combobox, input, selected } = renderInput({
      defaultCountry: 'US',
      search: true,
    });
    await user.click(combobox);
    const searchBox = screen.getByRole('combobox', { name: 'Search countries' });
    await user.type(searchBox, 'ger');
    expect(searchBox.getAttribute('aria-activedescendant')).toBe(
      screen.getByRole('option', { name: 'Germany +49' }).id,
    );
    await user.keyboard('{ArrowDown}');
    expect(searchBox.getAttribute('aria-activedescendant')).toBe(
      screen.getByRole('option', { name: 'Algeria +213' }).id,
    );
    await user.keyboard('{Enter}');
    expect(selected()).toBe('Algeria +213');
    expect(input).toHaveFocus();
  });

  it('Escape from the search box closes and returns to the combobox; Tab moves to the number', async () => {
    const { user, combobox, input, selected } = renderInput({
      defaultCountry: 'US',
      search: true,
    });
    await user.click(combobox);
    await user.keyboard('fra{Escape}');
    expect(screen.queryByRole('listbox')).toBeNull();
    expect(combobox).toHaveFocus();
    expect(selected()).toBe('United States +1');
    await user.keyboard('{ArrowDown}');
    await waitFor(() =>
      expect(screen.getByRole('combobox', { name: 'Search countries' })).toHaveFocus(),
    );
    await user.tab();
    expect(screen.queryByRole('listbox')).toBeNull();
    expect(input).toHaveFocus();
  });
});

describe('PhoneInput: which countries', () => {
  it('only-countries lists those, and numbers of others are invalid', async () => {
    const { user, input, combobox, last, selected } = renderInput({
      defaultCountry: 'US',
      onlyCountries: ['US', 'GB'],
    });
    await user.click(combobox);
    expect(screen.getAllByRole('option').map((o) => o.textContent)).toEqual([
      '🇬🇧United Kingdom +44',
      '🇺🇸United States +1',
    ]);
    await user.keyboard('{Escape}');
    await user.type(input, '+49 30 12345678');
    expect(last()).toMatchObject({ countryCode: 'DE', valid: false, possible: true });
    expect(selected()).toBe('United States +1');
  });

  it('ignored-countries leaves them out, and their numbers are invalid', async () => {
    const { user, input, combobox, last } = renderInput({
      defaultCountry: 'US',
      ignoredCountries: ['GB'],
    });
    await user.type(input, '+44 20 7946 0958');
    expect(last()).toMatchObject({ countryCode: 'GB', valid: false });
    await user.click(combobox);
    expect(screen.queryByRole('option', { name: 'United Kingdom +44' })).toBeNull();
  });

  it('lists preferred countries first', async () => {
    const { user, combobox } = renderInput({ preferredCountries: ['GB', 'DE'] });
    await user.click(combobox);
    const options = screen.getAllByRole('option');
    expect(options[0]).toHaveTextContent('United Kingdom');
    expect(options[1]).toHaveTextContent('Germany');
    expect(options[2]).toHaveTextContent('Afghanistan');
  });

  it('hides dial codes when asked, and shows flags as letters when asked', async () => {
    const { user, combobox } = renderInput({
      defaultCountry: 'GB',
      showDialCode: false,
      flags: 'letters',
    });
    expect(combobox).not.toHaveTextContent('+44');
    await user.click(combobox);
    const option = screen.getByRole('option', { name: 'United Kingdom' });
    expect(option).toHaveTextContent(/^GBUnited Kingdom$/);
    expect(countryList()).toHaveLength(245);
  });
});

describe('PhoneInput: looking up the visitor’s country', () => {
  it('selects the looked-up country', async () => {
    const { selected, last } = renderInput({
      defaultCountry: 'US',
      autoDetectCountry: true,
      lookupCountry: () => Promise.resolve('de'),
    });
    await waitFor(() => expect(selected()).toBe('Germany +49'));
    expect(last().country.iso2).toBe('DE');
  });

  it("reports 'unable to fetch the country' when the lookup fails, and keeps the default", async () => {
    const errors: WebError[] = [];
    const { selected } = renderInput({
      defaultCountry: 'GB',
      autoDetectCountry: true,
      lookupCountry: () => Promise.reject(new Error('offline')),
      onError: (error) => errors.push(error),
    });
    await waitFor(() => expect(errors).toHaveLength(1));
    expect(errors[0]).toMatchObject({
      name: 'CountryLookupError',
      code: 9301,
      message: 'unable to fetch the country',
    });
    expect((errors[0]?.cause as Error).message).toBe('offline');
    expect(selected()).toBe('United Kingdom +44');
  });

  it('reports an unknown looked-up country the same way', async () => {
    const errors: WebError[] = [];
    const { selected } = renderInput({
      defaultCountry: 'GB',
      autoDetectCountry: true,
      lookupCountry: () => Promise.resolve('ZZ'),
      onError: (error) => errors.push(error),
    });
    await waitFor(() =>
      expect(errors.map((e) => e.message)).toEqual(['unable to fetch the country']),
    );
    expect(selected()).toBe('United Kingdom +44');
  });

  it('does not look up unless asked', () => {
    const lookup = vi.fn(() => Promise.resolve('DE'));
    renderInput({ lookupCountry: lookup });
    expect(lookup).not.toHaveBeenCalled();
  });

  it('never overrides a country the agent chose', async () => {
    let resolve: (iso2: string) => void = () => {};
    const { user, combobox, selected } = renderInput({
      defaultCountry: 'US',
      autoDetectCountry: true,
      lookupCountry: () => new Promise((r) => (resolve = r)),
    });
    await user.click(combobox);
    await user.click(screen.getByRole('option', { name: 'France +33' }));
    await act(async () => resolve('DE'));
    expect(selected()).toBe('France +33');
  });
});

describe('PhoneInput: messages and prefill', () => {
  it('shows the invalid message once the field was left with an invalid number', async () => {
    const { user, input } = renderInput({
      defaultCountry: 'US',
      invalidMessage: (v) => (v.error ? `Bad number (${v.error})` : null),
    });
    await user.type(input, '5');
    expect(input).not.toHaveAttribute('aria-invalid');
    await user.tab();
    expect(input).toHaveAttribute('aria-invalid', 'true');
    expect(input).toHaveAccessibleDescription('Bad number (TOO_SHORT)');
    await user.type(input, '4155550132');
    expect(input).not.toHaveAttribute('aria-invalid');
  });

  it('formats a prefilled number and picks its country at once', () => {
    const { input, selected, results } = renderInput({
      defaultCountry: 'US',
      initial: '+442079460958',
    });
    expect(input).toHaveValue('+44 20 7946 0958');
    expect(selected()).toBe('United Kingdom +44');
    expect(results[0]?.validation).toMatchObject({ valid: true, countryCode: 'GB' });
  });
});
