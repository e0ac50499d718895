/**
 * The phone input's country selector: a select-only ARIA combobox (the flag and dial code)
 * controlling a listbox of countries, with an optional search box (then an editable combobox
 * in the popup). Keyboard: arrows, Home/End, PageUp/PageDown, Enter, Escape, Tab, and
 * type-to-find on the closed or open list (reset after 700 ms). The list opens below when more
 * than 200 px remain under the field, above otherwise; Escape, Tab and a click outside close it.
 */
import {
  useEffect,
  useId,
  useLayoutEffect,
  useRef,
  useState,
  type KeyboardEvent,
  type RefObject,
} from 'react';
import { DROPDOWN_OPEN_BELOW_MIN_PX } from '../constants';
import type { Timers } from '../platform/platform';
import { searchCountries, typeToFind, type CountryOption } from './country-options';
import { TypeAhead, isTypeAheadKey } from './type-ahead';

/** Where the list opens. */
export type DropdownPlacement = 'below' | 'above';

/** Below when more than 200 px remain under the field (spec section 2), else above. */
export function dropdownPlacement(spaceBelowPx: number): DropdownPlacement {
  return spaceBelowPx > DROPDOWN_OPEN_BELOW_MIN_PX ? 'below' : 'above';
}

/** How a country was chosen: focus goes to the number after a pick from the open list. */
export type ChooseSource = 'list' | 'typeahead';

/** Props of {@link CountrySelect}. */
export interface CountrySelectProps {
  readonly countries: readonly CountryOption[];
  readonly selected: CountryOption;
  readonly onChoose: (country: CountryOption, source: ChooseSource) => void;
  /** The field the list is placed against (its bottom edge is measured). */
  readonly anchorRef: RefObject<HTMLElement | null>;
  /** The number's text field: focus goes there after a pick, and Tab from the search box. */
  readonly inputRef: RefObject<HTMLInputElement | null>;
  readonly search: boolean;
  readonly showDialCode: boolean;
  readonly flagStyle: 'emoji' | 'letters';
  readonly timers: Timers;
  readonly disabled: boolean;
}

const PAGE_STEP = 10;

/** See the module comment. */
export function CountrySelect({
  countries,
  selected,
  onChoose,
  anchorRef,
  inputRef,
  search,
  showDialCode,
  flagStyle,
  timers,
  disabled,
}: CountrySelectProps) {
  const baseId = useId();
  const listId = `${baseId}-countries`;
  const optionId = (country: CountryOption) => `${baseId}-country-${country.iso2}`;
  const rootRef = useRef<HTMLDivElement>(null);
  const triggerRef = useRef<HTMLDivElement>(null);
  const searchRef = useRef<HTMLInputElement>(null);
  const listRef = useRef<HTMLUListElement>(null);
  const [typeAhead] = useState(() => new TypeAhead(timers));
  const [open, setOpen] = useState(false);
  const [placement, setPlacement] = useState<DropdownPlacement>('below');
  const [query, setQuery] = useState('');
  const [activeIndex, setActiveIndex] = useState(-1);

  const visible = open && search ? searchCountries(countries, query) : countries;
  const active = visible[activeIndex];
  const selectedIndex = countries.findIndex((c) => c.iso2 === selected.iso2);

  useEffect(() => () => typeAhead.reset(), [typeAhead]);

  // A click outside closes the list and leaves focus where the click put it.
  useEffect(() => {
    if (!open) return;
    const onPointerDown = (event: PointerEvent) => {
      if (event.target instanceof Node && !rootRef.current?.contains(event.target)) {
        setOpen(false);
        setQuery('');
      }
    };
    document.addEventListener('pointerdown', onPointerDown);
    return () => document.removeEventListener('pointerdown', onPointerDown);
  }, [open]);

  useEffect(() => {
    if (open && search) searchRef.current?.focus();
  }, [open, search]);

  // On opening, the highlighted country sits in the middle of the list; then it is kept in view.
  const scrollBlock = useRef<ScrollLogicalPosition>('center');
  useLayoutEffect(() => {
    if (!open) {
      scrollBlock.current = 'center';
      return;
    }
    const option = activeIndex < 0 ? undefined : listRef.current?.children[activeIndex];
    if (option instanceof HTMLElement && typeof option.scrollIntoView === 'function') {
      option.scrollIntoView({ block: scrollBlock.current });
    }
    scrollBlock.current = 'nearest';
  }, [open, activeIndex]);

  const openList = (index: number) => {
    const anchor = anchorRef.current ?? rootRef.current;
    const view = anchor?.ownerDocument.defaultView;
    if (anchor && view) {
      setPlacement(dropdownPlacement(view.innerHeight - anchor.getBoundingClientRect().bottom));
    }
    typeAhead.reset();
    setQuery('');
    setActiveIndex(Math.min(Math.max(index, 0), countries.length - 1));
    setOpen(true);
  };

  const close = (focusTrigger: boolean) => {
    setOpen(false);
    setQuery('');
    typeAhead.reset();
    if (focusTrigger) triggerRef.current?.focus();
  };

  const choose = (country: CountryOption | undefined) => {
    if (!country) return;
    close(false);
    onChoose(country, 'list');
    inputRef.current?.focus();
  };

  const move = (to: number) => {
    if (visible.length === 0) return;
    setActiveIndex(Math.min(Math.max(to, 0), visible.length - 1));
  };

  /** Arrows, paging, Home/End and Enter inside the open list; true when the key was used. */
  const navigate = (event: KeyboardEvent<HTMLElement>, homeEnd: boolean): boolean => {
    switch (event.key) {
      case 'ArrowDown':
        move(activeIndex + 1);
        return true;
      case 'ArrowUp':
        if (event.altKey) choose(active);
        else move(activeIndex - 1);
        return true;
      case 'PageDown':
        move(activeIndex + PAGE_STEP);
        return true;
      case 'PageUp':
        move(activeIndex - PAGE_STEP);
        return true;
      case 'Home':
        if (!homeEnd) return false;
        move(0);
        return true;
      case 'End':
        if (!homeEnd) return false;
        move(visible.length - 1);
        return true;
      case 'Enter':
        choose(active);
        return true;
      case 'Escape':
        close(true);
        return true;
      default:
        return false;
    }
  };

  const onTriggerKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    if (disabled) return;
    const { key } = event;
    if (!open) {
      const typing = typeAhead.typed !== '';
      if (key === 'ArrowDown' || key === 'ArrowUp' || key === 'Enter' || (key === ' ' && !typing)) {
        event.preventDefault();
        openList(selectedIndex);
      } else if (key === 'Home' || key === 'End') {
        event.preventDefault();
        openList(key === 'Home' ? 0 : countries.length - 1);
      } else if (isTypeAheadKey(event)) {
        // Closed: type-to-find picks the country at once, like a native select.
        event.preventDefault();
        const index = typeToFind(countries, typeAhead.type(key), selectedIndex);
        const found = index === null ? undefined : countries[index];
        if (found && found.iso2 !== selected.iso2) onChoose(found, 'typeahead');
      }
      return;
    }
    if (key === 'Tab') {
      // Closes and lets Tab move focus on (to the number).
      close(false);
      return;
    }
    if (key === ' ' && typeAhead.typed === '') {
      event.preventDefault();
      choose(active);
      return;
    }
    if (navigate(event, true)) {
      event.preventDefault();
      return;
    }
    if (isTypeAheadKey(event)) {
      event.preventDefault();
      const index = typeToFind(visible, typeAhead.type(key), activeIndex);
      if (index !== null) setActiveIndex(index);
    }
  };

  const onSearchKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key === 'Tab') {
      // The search box leaves the page with the popup: move focus on by hand.
      event.preventDefault();
      close(event.shiftKey);
      if (!event.shiftKey) inputRef.current?.focus();
      return;
    }
    // Home/End stay the text box's own (caret to the start/end of the search).
    if (navigate(event, false)) event.preventDefault();
  };

  const flagOf = (country: CountryOption) =>
    flagStyle === 'emoji' ? (
      <span className="flag" aria-hidden="true">
        {country.flag}
      </span>
    ) : (
      <span className="flag flag-letters" aria-hidden="true">
        {country.iso2}
      </span>
    );

  return (
    <div className="country-select" ref={rootRef}>
      <div
        ref={triggerRef}
        role="combobox"
        tabIndex={disabled ? -1 : 0}
        aria-label="Country"
        aria-haspopup="listbox"
        aria-expanded={open}
        aria-controls={open ? listId : undefined}
        aria-activedescendant={open && !search && active ? optionId(active) : undefined}
        aria-disabled={disabled || undefined}
        className="country-trigger"
        title={selected.name}
        onClick={() => {
          if (disabled) return;
          if (open) close(true);
          else openList(selectedIndex);
        }}
        onKeyDown={onTriggerKeyDown}
      >
        {flagOf(selected)}
        {showDialCode && (
          <span className="country-dial" aria-hidden="true">
            +{selected.dialCode}
          </span>
        )}
        <span className="sr-only">
          {selected.name}
          {showDialCode ? ` +${selected.dialCode}` : ''}
        </span>
        <svg className="chevron" viewBox="0 0 12 12" width="12" height="12" aria-hidden="true">
          <path d="M2.5 4.5 6 8l3.5-3.5" fill="none" stroke="currentColor" strokeWidth="1.6" />
        </svg>
      </div>
      {open && (
        <div className={`country-popup is-${placement}`} data-placement={placement}>
          {search && (
            <input
              ref={searchRef}
              className="input country-search"
              type="text"
              role="combobox"
              aria-label="Search countries"
              aria-expanded="true"
              aria-controls={listId}
              aria-autocomplete="list"
              aria-activedescendant={active ? optionId(active) : undefined}
              placeholder="Search countries"
              autoComplete="off"
              spellCheck={false}
              value={query}
              onChange={(event) => {
                setQuery(event.target.value);
                setActiveIndex(0);
              }}
              onKeyDown={onSearchKeyDown}
            />
          )}
          <ul
            id={listId}
            ref={listRef}
            role="listbox"
            aria-label="Countries"
            className="country-list"
          >
            {visible.map((country, index) => (
              <li
                key={country.iso2}
                id={optionId(country)}
                role="option"
                aria-selected={country.iso2 === selected.iso2}
                className={`country-option${index === activeIndex ? ' is-active' : ''}`}
                // Keep focus on the combobox (or the search box) while picking with the mouse.
                onMouseDown={(event) => event.preventDefault()}
                onMouseMove={() => {
                  if (index !== activeIndex) setActiveIndex(index);
                }}
                onClick={() => choose(country)}
              >
                {flagOf(country)}
                <span className="country-name">{country.name}</span>
                {showDialCode && (
                  <>
                    {' '}
                    <span className="country-code">+{country.dialCode}</span>
                  </>
                )}
              </li>
            ))}
          </ul>
          {visible.length === 0 && (
            <p className="country-empty" role="status">
              No countries found
            </p>
          )}
        </div>
      )}
    </div>
  );
}
