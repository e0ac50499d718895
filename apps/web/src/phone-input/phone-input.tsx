/**
 * The international phone input (spec sections 2, 5, 8, 9): a country selector (flags, names,
 * dial codes, optional search, keyboard navigation, type-to-find) beside a text field that
 * takes only phone characters, at most 25 by default, placeholder 'Enter a phone number'. On
 * every change of the text or the country it emits the validation result
 * `{ country, countryCode, formatted, valid, possible, nationalNumber }` (plus `e164` and the
 * parse `error`). A valid number is shown formatted; a number typed with another country's code
 * selects that country. Parsing is the shared phone module's (`@leadline/contracts/phone`).
 */
import {
  PHONE_INPUT_MAX_LENGTH,
  validatePhone,
  type PhoneValidation,
} from '@leadline/contracts/phone';
import {
  useEffect,
  useEffectEvent,
  useId,
  useImperativeHandle,
  useLayoutEffect,
  useRef,
  useState,
  type ChangeEvent,
  type Ref,
} from 'react';
import { COUNTRY_LOOKUP_FAILED_MESSAGE, PHONE_INPUT_PLACEHOLDER } from '../constants';
import { WebError } from '../errors';
import type { Timers } from '../platform/platform';
import { everyCountry, countryList, findCountry, type CountryOption } from './country-options';
import { browserLocaleCountry, type CountryLookup } from './country-lookup';
import { CountrySelect, type ChooseSource } from './country-select';
import { resolveFlagStyle, type FlagStyle } from './flag-emoji';
import { acceptEdit, caretAfterReformat, type PhoneCharacters } from './phone-text';
import { windowTimers } from './type-ahead';

/** The validation result the input emits: the shared module's, plus the selected country. */
export interface PhoneInputValidation extends PhoneValidation {
  /** The country selected in the dropdown. */
  readonly country: CountryOption;
}

/** Props of {@link PhoneInput}. */
export interface PhoneInputProps {
  /** The text in the field (controlled). */
  readonly value: string;
  /** Every change of the text or the country, with the new text and its validation. */
  readonly onChange: (value: string, validation: PhoneInputValidation) => void;
  /** The field's visible label (`Phone Number`). */
  readonly label: string;
  /** The country selected at first (the user's `country_code`); the US when unknown. */
  readonly defaultCountry?: string | null;
  /** Output format of `formatted` and of the shown number; `automatic` by default. */
  readonly mode?: string;
  /** Only these countries (ISO codes) are listed and valid. */
  readonly onlyCountries?: readonly string[];
  /** These countries (ISO codes) are not listed, and their numbers are invalid. */
  readonly ignoredCountries?: readonly string[];
  /** Countries listed first. */
  readonly preferredCountries?: readonly string[];
  /** Show a search box in the dropdown. */
  readonly search?: boolean;
  /** Show dial codes in the selector and the list (default true). */
  readonly showDialCode?: boolean;
  /** Flags as emoji, as letters, or whichever the system can draw (default). */
  readonly flags?: FlagStyle;
  /** Maximum length of the text (default 25). */
  readonly maxLength?: number;
  /** Which characters the field takes (default: digits, `+`, parentheses, hyphen, whitespace). */
  readonly characters?: PhoneCharacters;
  /** Placeholder (default 'Enter a phone number'). */
  readonly placeholder?: string;
  /** Show a valid number formatted (default true). */
  readonly autoFormat?: boolean;
  /** Look up the visitor's country when the field appears and select it. */
  readonly autoDetectCountry?: boolean;
  /** How the country is looked up (default: the browser's locale region; no network). */
  readonly lookupCountry?: CountryLookup;
  /** Reports problems: `CountryLookupError` ('unable to fetch the country'); the default stays. */
  readonly onError?: (error: WebError) => void;
  /**
   * The message shown under the field once it was left with an invalid number: a text, or a
   * function of the validation (null for none). Nothing is shown without it.
   */
  readonly invalidMessage?: string | ((validation: PhoneInputValidation) => string | null);
  /** Timers for type-to-find (the page's by default). */
  readonly timers?: Timers;
  /** Names in this language (BCP 47; English by default). */
  readonly locale?: string;
  readonly id?: string;
  readonly name?: string;
  readonly disabled?: boolean;
  readonly required?: boolean;
  readonly autoFocus?: boolean;
  /** The text field, for the parent to focus. */
  readonly inputRef?: Ref<HTMLInputElement>;
}

const FALLBACK_COUNTRY = 'US';

/** Text the input may rewrite formatted: phone punctuation only, ending in a digit. */
const FORMATTABLE_TEXT = /^[\d+()\-\s./]*\d$/;

/** The country shown at first: the number's (if the text has one), else the default, else the US. */
function initialCountry(
  list: readonly CountryOption[],
  value: string,
  defaultCountry: string | null | undefined,
): CountryOption {
  const byDefault =
    findCountry(list, defaultCountry) ??
    findCountry(list, FALLBACK_COUNTRY) ??
    list[0] ??
    findCountry(everyCountry(), FALLBACK_COUNTRY)!;
  const { countryCode } = validatePhone(value, { country: byDefault.iso2 });
  return findCountry(list, countryCode) ?? byDefault;
}

/** See the module comment. */
export function PhoneInput({
  value,
  onChange,
  label,
  defaultCountry,
  mode = 'automatic',
  onlyCountries,
  ignoredCountries,
  preferredCountries,
  search = false,
  showDialCode = true,
  flags = 'auto',
  maxLength = PHONE_INPUT_MAX_LENGTH,
  characters = 'phone',
  placeholder = PHONE_INPUT_PLACEHOLDER,
  autoFormat = true,
  autoDetectCountry = false,
  lookupCountry = browserLocaleCountry,
  onError,
  invalidMessage,
  timers = windowTimers,
  locale,
  id,
  name,
  disabled = false,
  required = false,
  autoFocus = false,
  inputRef,
}: PhoneInputProps) {
  const generatedId = useId();
  const inputId = id ?? `${generatedId}-number`;
  const labelId = `${generatedId}-label`;
  const messageId = `${generatedId}-message`;
  const anchorRef = useRef<HTMLDivElement>(null);
  const fieldRef = useRef<HTMLInputElement>(null);
  const pendingCaret = useRef<number | null>(null);
  const countryChosen = useRef(false);
  const [flagStyle] = useState(() => resolveFlagStyle(flags));
  const [touched, setTouched] = useState(false);

  const countries = countryList({ onlyCountries, ignoredCountries, preferredCountries, locale });
  const [countryIso, setCountryIso] = useState(
    () => initialCountry(countries, value, defaultCountry).iso2,
  );
  const country =
    findCountry(countries, countryIso) ?? initialCountry(countries, value, defaultCountry);

  const validate = (text: string, selected: CountryOption): PhoneInputValidation => ({
    ...validatePhone(text, { country: selected.iso2, mode, onlyCountries, ignoredCountries }),
    country: selected,
  });
  const validation = validate(value, country);

  /**
   * What `text` with `selected` becomes: the number's own country is followed (unless the agent
   * just chose one), and a valid number is shown formatted.
   */
  const settle = (text: string, selected: CountryOption, chose: boolean) => {
    let current = selected;
    let result = validate(text, current);
    if (!chose && result.countryCode && result.countryCode !== current.iso2) {
      const numbers = findCountry(countries, result.countryCode);
      if (numbers) {
        current = numbers;
        result = validate(text, current);
      }
    }
    // Only a finished-looking number is rewritten: one that ends in a digit and has nothing but
    // phone punctuation, so a space or an `ext.` being typed after it is not swallowed.
    const formatted =
      autoFormat &&
      result.valid &&
      result.formatted !== text &&
      result.formatted.length <= maxLength &&
      FORMATTABLE_TEXT.test(text);
    return { shown: formatted ? result.formatted : text, result, current };
  };

  /** Emits `text` with `selected`, keeping the caret after the same digit when reformatted. */
  const commit = (text: string, selected: CountryOption, caret: number | null, chose: boolean) => {
    const { shown, result, current } = settle(text, selected, chose);
    pendingCaret.current =
      caret === null || shown === text ? caret : caretAfterReformat(text, caret, shown);
    if (current.iso2 !== countryIso) setCountryIso(current.iso2);
    onChange(shown, result);
  };

  const onTextChange = (event: ChangeEvent<HTMLInputElement>) => {
    const field = event.currentTarget;
    const typed = field.value;
    const caret = field.selectionStart ?? typed.length;
    const accepted = acceptEdit({ text: typed, caret }, characters, maxLength);
    if (!accepted || accepted.text === value) {
      // Refused or nothing left to change: put the text and caret back without a render.
      const back = accepted ? accepted.caret : Math.max(0, caret - (typed.length - value.length));
      field.value = value;
      field.setSelectionRange(back, back);
      return;
    }
    commit(accepted.text, country, accepted.caret, false);
  };

  const onChoose = (chosen: CountryOption, _source: ChooseSource) => {
    countryChosen.current = true;
    // A number written with the old country's code moves to the new one's.
    let text = value;
    const current = validatePhone(value, { country: country.iso2 });
    if (value.trimStart().startsWith('+') && current.nationalNumber !== null) {
      text = `+${chosen.dialCode} ${current.nationalNumber}`;
    }
    commit(text, chosen, null, true);
  };

  useLayoutEffect(() => {
    const caret = pendingCaret.current;
    pendingCaret.current = null;
    const field = fieldRef.current;
    if (caret === null || !field || field.ownerDocument.activeElement !== field) return;
    field.setSelectionRange(caret, caret);
  }, [value]);

  // The first result, so the parent knows the prefilled text's validation and country (the
  // initial country is already the number's own).
  const emitInitial = useEffectEvent(() => {
    const { shown, result } = settle(value, country, false);
    onChange(shown, result);
  });
  useEffect(() => emitInitial(), []);

  const reportLookupFailure = useEffectEvent((cause: unknown) => {
    onError?.(new WebError('CountryLookupError', COUNTRY_LOOKUP_FAILED_MESSAGE, { cause }));
  });
  const onLookedUp = useEffectEvent((iso2: string) => {
    // The agent's own choice, or a number with its own country code, wins over the lookup.
    if (countryChosen.current || value.trimStart().startsWith('+')) return;
    const found = findCountry(countries, iso2);
    if (!found) {
      reportLookupFailure(new Error(`The looked-up country "${iso2}" is not in the list.`));
      return;
    }
    if (found.iso2 !== country.iso2) commit(value, found, null, true);
  });
  const startLookup = useEffectEvent(() => {
    if (!autoDetectCountry) return () => {};
    let current = true;
    let lookup: Promise<string>;
    try {
      lookup = lookupCountry();
    } catch (error) {
      reportLookupFailure(error);
      return () => {};
    }
    lookup.then(
      (iso2) => {
        if (current) onLookedUp(iso2);
      },
      (error: unknown) => {
        if (current) reportLookupFailure(error);
      },
    );
    return () => {
      current = false;
    };
  });
  useEffect(() => startLookup(), []);

  const message =
    touched && value.trim() !== '' && !validation.valid
      ? typeof invalidMessage === 'function'
        ? invalidMessage(validation)
        : (invalidMessage ?? null)
      : null;

  useImperativeHandle(inputRef, () => fieldRef.current as HTMLInputElement, []);

  return (
    <div className="field phone-field" role="group" aria-labelledby={labelId}>
      <label id={labelId} className="field-label" htmlFor={inputId}>
        {label}
      </label>
      <div
        ref={anchorRef}
        className={`phone-input${message ? ' is-invalid' : ''}${disabled ? ' is-disabled' : ''}`}
      >
        <CountrySelect
          countries={countries}
          selected={country}
          onChoose={onChoose}
          anchorRef={anchorRef}
          inputRef={fieldRef}
          search={search}
          showDialCode={showDialCode}
          flagStyle={flagStyle}
          timers={timers}
          disabled={disabled}
        />
        <input
          ref={fieldRef}
          id={inputId}
          name={name}
          className="phone-number"
          type="tel"
          inputMode="tel"
          autoComplete="tel"
          placeholder={placeholder}
          maxLength={maxLength}
          value={value}
          disabled={disabled}
          required={required}
          autoFocus={autoFocus}
          aria-invalid={message ? true : undefined}
          aria-describedby={message ? messageId : undefined}
          onChange={onTextChange}
          onBlur={() => setTouched(true)}
        />
      </div>
      {message && (
        <p id={messageId} className="field-message">
          {message}
        </p>
      )}
    </div>
  );
}
