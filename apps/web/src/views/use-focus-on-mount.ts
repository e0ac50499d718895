import { useEffect, useRef } from 'react';

/**
 * A ref whose element takes focus when the component mounts (when `enabled`), so keyboard and
 * screen-reader users land on the new view's primary action.
 */
export function useFocusOnMount<T extends HTMLElement>(enabled = true) {
  const ref = useRef<T>(null);
  useEffect(() => {
    if (enabled) ref.current?.focus();
  }, [enabled]);
  return ref;
}
