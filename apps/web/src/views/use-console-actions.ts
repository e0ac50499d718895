import { useMutation } from '@tanstack/react-query';
import { useEffect, useEffectEvent } from 'react';
import {
  NO_INPUT,
  actionForKey,
  type ActionContext,
  type ActionInput,
  type ActionName,
  type ConsoleAction,
} from '../console/actions';
import { errorMessage } from '../errors';
import { useConsoleSnapshot, useServices } from '../use-services';

/** What a view needs to render and run its actions. */
export interface ConsoleActionsHandle {
  readonly context: ActionContext;
  /** Runs `action` if it can run now and nothing else is running. */
  run(action: ConsoleAction): void;
  /** The action waiting for the server, if any. */
  readonly pending: ActionName | null;
  /** The last failure's text (the server's `error`), for the view's banner. */
  readonly error: string | null;
}

interface Run {
  readonly action: ConsoleAction;
  readonly context: ActionContext;
}

/**
 * Runs a view's actions from its buttons and from their keyboard shortcuts (one listener on the
 * document while the view is shown). Failures land in `error`.
 */
export function useConsoleActions(
  actions: readonly ConsoleAction[],
  input: ActionInput = NO_INPUT,
): ConsoleActionsHandle {
  const { controller } = useServices();
  const { console: state } = useConsoleSnapshot();
  const context: ActionContext = { state, commands: controller, input };
  const mutation = useMutation({
    mutationFn: async ({ action, context: at }: Run) => {
      await action.perform(at);
    },
  });

  const run = (action: ConsoleAction): void => {
    // Check against the controller's state now, not the one this view last rendered: a phone
    // event (a hang-up from the far end) may have landed in between.
    const now: ActionContext = { ...context, state: controller.state };
    if (mutation.isPending || !action.predicate(now)) return;
    mutation.mutate({ action, context: now });
  };

  const onKeyDown = useEffectEvent((event: KeyboardEvent) => {
    if (event.defaultPrevented) return;
    const action = actionForKey(actions, event, context);
    if (!action) return;
    event.preventDefault();
    run(action);
  });

  useEffect(() => {
    const listener = (event: KeyboardEvent) => onKeyDown(event);
    document.addEventListener('keydown', listener);
    return () => document.removeEventListener('keydown', listener);
  }, []);

  return {
    context,
    run,
    pending: mutation.isPending ? mutation.variables.action.name : null,
    error: mutation.error ? errorMessage(mutation.error) : null,
  };
}
