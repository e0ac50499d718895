import { useCallback, useEffect, useRef, useState } from 'react';

/** What a screen's form is doing: nothing, creating, or editing `row`. */
export type FormSlot<T> =
  | { readonly kind: 'closed' }
  | { readonly kind: 'create' }
  | { readonly kind: 'edit'; readonly row: T };

/**
 * A screen's one form (create or edit, the same component) and where focus goes back when it
 * closes: the button that opened it.
 */
export function useFormSlot<T>() {
  const [slot, setSlot] = useState<FormSlot<T>>({ kind: 'closed' });
  const openerRef = useRef<HTMLElement | null>(null);
  const returningRef = useRef(false);

  useEffect(() => {
    if (!returningRef.current || slot.kind !== 'closed') return;
    returningRef.current = false;
    const opener = openerRef.current;
    if (opener?.isConnected) opener.focus();
  }, [slot]);

  const remember = (element: EventTarget | null) => {
    openerRef.current = element instanceof HTMLElement ? element : null;
  };
  return {
    slot,
    /** Opens the create form; `opener` gets focus back when it closes. */
    create: useCallback((opener: EventTarget | null) => {
      remember(opener);
      setSlot({ kind: 'create' });
    }, []),
    /** Opens the edit form of `row`. */
    edit: useCallback((row: T, opener: EventTarget | null) => {
      remember(opener);
      setSlot({ kind: 'edit', row });
    }, []),
    /** Closes the form; focus returns to its opener. */
    close: useCallback(() => {
      returningRef.current = true;
      setSlot({ kind: 'closed' });
    }, []),
  };
}
