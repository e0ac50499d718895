import { useEffect, useEffectEvent } from 'react';
import { matchesKey } from '../console/actions';
import { KEYPAD_DIGITS } from '../console/console-controller';
import { useConsoleSnapshot, useServices } from '../use-services';
import { ErrorBanner } from '../ui/error-banner';

/** Spoken names of the two symbol keys (a digit's name is the digit). */
const SYMBOL_NAMES: Readonly<Record<string, string>> = { '*': 'Star', '#': 'Pound' };

/**
 * The keypad (spec section 2): 0-9, * and # as buttons and from the keyboard while it is open
 * (not while typing in a text field). Each digit goes out on the call as a DTMF tone (the SDK
 * paces them 200 ms apart and plays each locally); the digits sent show above the keys. A digit
 * the softphone refuses (signalling down) is not listed; its error shows instead.
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
      <ErrorBanner message={state.keypadError} />
      <div className="keypad-keys">
        {KEYPAD_DIGITS.map((digit) => (
          <button
            key={digit}
            type="button"
            className="btn btn-secondary keypad-key"
            aria-label={SYMBOL_NAMES[digit]}
            aria-keyshortcuts={digit}
            onClick={() => controller.sendDigit(digit)}
          >
            <span className="keypad-digit">{digit}</span>
          </button>
        ))}
      </div>
    </section>
  );
}
