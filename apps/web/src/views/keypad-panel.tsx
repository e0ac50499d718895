import { useEffect, useEffectEvent } from 'react';
import { matchesKey } from '../console/actions';
import { KEYPAD_DIGITS } from '../console/console-controller';
import { useConsoleSnapshot, useServices } from '../services';

/** The letters under a keypad digit, as on a phone. */
const LETTERS: Readonly<Record<string, string>> = {
  '2': 'ABC',
  '3': 'DEF',
  '4': 'GHI',
  '5': 'JKL',
  '6': 'MNO',
  '7': 'PQRS',
  '8': 'TUV',
  '9': 'WXYZ',
};

/**
 * The keypad (spec section 2): 0-9, * and # as buttons and from the keyboard while it is open
 * (not while typing in a text field). Each digit goes out on the call as a DTMF tone (the SDK
 * paces them 200 ms apart and plays each locally); the digits sent show above the keys.
 */
export function KeypadPanel() {
  const { controller } = useServices();
  const { console: state } = useConsoleSnapshot();

  const onKeyDown = useEffectEvent((event: KeyboardEvent) => {
    if (event.defaultPrevented) return;
    const digit = KEYPAD_DIGITS.find((d) => matchesKey({ key: d }, event));
    if (digit === undefined) return;
    event.preventDefault();
    controller.sendDigit(digit);
  });

  useEffect(() => {
    const listener = (event: KeyboardEvent) => onKeyDown(event);
    document.addEventListener('keydown', listener);
    return () => document.removeEventListener('keydown', listener);
  }, []);

  return (
    <section className="keypad" aria-label="Keypad">
      <output className="keypad-digits" aria-label="Digits sent" aria-live="polite">
        {state.digits}
      </output>
      <div className="keypad-keys">
        {KEYPAD_DIGITS.map((digit) => (
          <button
            key={digit}
            type="button"
            className="btn btn-secondary keypad-key"
            aria-label={digit === '*' ? 'Star' : digit === '#' ? 'Pound' : digit}
            aria-keyshortcuts={digit}
            onClick={() => controller.sendDigit(digit)}
          >
            <span className="keypad-digit" aria-hidden="true">
              {digit}
            </span>
            <span className="keypad-letters" aria-hidden="true">
              {LETTERS[digit] ?? ''}
            </span>
          </button>
        ))}
      </div>
    </section>
  );
}
