import { useLayoutEffect, useRef } from 'react';

/**
 * A ref whose element takes focus when the component mounts (when `enabled`), so keyboard and
 * screen-reader users land on the new view's primary action. A layout effect: focus moves in the
 * same commit that shows the view, before paint, so nothing (a test, a fast key press) ever sees
 * the view shown with focus still on the control that opened it.
 */
export function useFocusOnMount<T extends HTMLElement>(enabled = true) {
  const ref = useRef<T>(null);
  useLayoutEffect(() => {
    if (enabled) ref.current?.focus();
  }, [enabled]);
  return ref;
}
