import type { Tag } from '@leadline/contracts';
import { useEffect, useEffectEvent, useState } from 'react';
import { actionsOf } from '../console/actions';
import { SMS_MAX_LENGTH } from '../constants';
import { errorMessage } from '../errors';
import { useServices } from '../use-services';
import { ActionButton } from './action-button';
import { ErrorBanner } from '../ui/error-banner';
import { readableTextOn, tagBackground } from '../ui/colour-contrast';
import { useConsoleActions } from './use-console-actions';
import { useFocusOnMount } from '../ui/use-focus-on-mount';

const TAG_ACTIONS = actionsOf('disposition2');
const SMS_ACTIONS = actionsOf('sms');

/** Props of {@link TagsView}. */
export interface TagsViewProps {
  /** The tags of the call's profile, in the profile's order. */
  readonly tags: readonly Tag[];
}

/**
 * Tags & Stages (disposition2): one button per tag of the call's profile, in the tag's colour
 * with text that stays readable on it, and Skip. Digits 1–9 choose the first nine tags.
 */
export function TagsView({ tags }: TagsViewProps) {
  const actions = useConsoleActions(TAG_ACTIONS);
  const { controller } = useServices();
  const [choosing, setChoosing] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const groupRef = useFocusOnMount<HTMLDivElement>();

  const choose = (key: string) => {
    if (choosing !== null) return;
    setChoosing(key);
    setError(null);
    controller.chooseTag(key).catch((failure: unknown) => {
      setChoosing(null);
      setError(errorMessage(failure));
    });
  };

  useDigitShortcuts(tags, choose);

  return (
    <section className="panel tags" aria-labelledby="tags-title">
      <h1 id="tags-title" className="panel-title">
        Tags &amp; Stages
      </h1>
      <ErrorBanner message={error ?? actions.error} />
      <div
        className="tag-grid"
        role="group"
        aria-labelledby="tags-title"
        ref={groupRef}
        tabIndex={-1}
      >
        {tags.map((tag, index) => (
          <button
            key={tag.id}
            type="button"
            className="btn btn-tag"
            style={
              tagBackground(tag.color)
                ? { backgroundColor: tag.color, color: readableTextOn(tag.color) }
                : undefined
            }
            disabled={choosing !== null}
            aria-busy={choosing === tag.key || undefined}
            aria-keyshortcuts={index < 9 ? String(index + 1) : undefined}
            onClick={() => choose(tag.key)}
          >
            <span className="btn-label">{tag.name}</span>
            {index < 9 && (
              <kbd className="btn-key" aria-hidden="true">
                {index + 1}
              </kbd>
            )}
          </button>
        ))}
        {tags.length === 0 && <p className="muted">This profile has no tags.</p>}
      </div>
      <div className="action-row">
        {TAG_ACTIONS.map((action) => (
          <ActionButton key={action.name} action={action} actions={actions} />
        ))}
      </div>
    </section>
  );
}

/** Digits 1–9 choose the matching tag (not while typing, nor with a modifier). */
function useDigitShortcuts(tags: readonly Tag[], choose: (key: string) => void): void {
  const onKeyDown = useEffectEvent((event: KeyboardEvent) => {
    if (event.defaultPrevented || event.repeat || event.ctrlKey || event.metaKey || event.altKey) {
      return;
    }
    if (!/^[1-9]$/.test(event.key)) return;
    const tag = tags[Number(event.key) - 1];
    if (!tag) return;
    event.preventDefault();
    choose(tag.key);
  });
  useEffect(() => {
    const listener = (event: KeyboardEvent) => onKeyDown(event);
    document.addEventListener('keydown', listener);
    return () => document.removeEventListener('keydown', listener);
  }, []);
}

/** Props of {@link SmsView}. */
export interface SmsViewProps {
  /** The text the area starts with (the default SMS text for app-sms users). */
  readonly initialText: string;
}

/**
 * Send SMS: the message to the lead (prefilled), Send and Cancel. A refusal from the server
 * (its `error`) shows in the banner and keeps the text; Send while offline keeps the message in
 * the outbox and moves on.
 */
export function SmsView({ initialText }: SmsViewProps) {
  const [text, setText] = useState(initialText);
  const actions = useConsoleActions(SMS_ACTIONS, { text });
  const textRef = useFocusOnMount<HTMLTextAreaElement>();
  return (
    <section className="panel sms" aria-labelledby="sms-title">
      <h1 id="sms-title" className="panel-title">
        Send SMS
      </h1>
      <ErrorBanner message={actions.error} />
      <div className="form">
        <label className="field">
          <span className="field-label">Message to the lead</span>
          <textarea
            ref={textRef}
            className="input textarea"
            name="smsbody"
            rows={4}
            maxLength={SMS_MAX_LENGTH}
            value={text}
            aria-keyshortcuts="Control+Enter Meta+Enter"
            onChange={(event) => setText(event.target.value)}
          />
        </label>
        <p className="muted field-hint">
          {text.length} / {SMS_MAX_LENGTH}
        </p>
        <div className="action-row">
          {SMS_ACTIONS.map((action) => (
            <ActionButton key={action.name} action={action} actions={actions} />
          ))}
        </div>
      </div>
    </section>
  );
}
