/**
 * The tag editor of a profile (Tags & Stages): an ordered list of tags, each with its name, key
 * and colour; Add, Remove, Move up and Move down. The colour is picked with the browser's colour
 * picker or typed as hex; a chip previews the tag's name in its colour with the console's
 * readable text colour, and the contrast is said as it changes ('Contrast 4.8:1 — readable',
 * or too low: the server refuses it with its sentence).
 */
import { readableTextOn } from '@leadline/contracts/lib';
import { useEffect, useId, useRef } from 'react';
import { contrastVerdict } from './contrast-text';

/** A tag as the editor holds it: `uid` tells rows apart while keys are being typed. */
export interface EditedTag {
  readonly uid: string;
  readonly key: string;
  readonly name: string;
  readonly color: string;
  /** The key follows the name until the key is typed (new tags only). */
  readonly keyFollowsName: boolean;
}

/** The colour a new tag starts with (readable: white text at 4.5:1). */
export const NEW_TAG_COLOUR = '#1a73e8';

/** `name` as a tag key: lower case, words joined by '-', only letters, digits, - and _. */
export function keyFromName(name: string): string {
  return name
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9_-]+/g, '-')
    .replace(/^[-_]+|-+$/g, '')
    .slice(0, 50);
}

/** `list` with the item at `from` moved to `to`. */
export function moveItem<T>(list: readonly T[], from: number, to: number): T[] {
  if (to < 0 || to >= list.length || from === to) return [...list];
  const next = [...list];
  const [item] = next.splice(from, 1);
  next.splice(to, 0, item as T);
  return next;
}

/** `#rgb` as `#rrggbb` (the colour input takes only the long form); null if not a colour. */
function longHex(colour: string): string | null {
  const match = /^#([0-9a-f]{3}|[0-9a-f]{6})$/i.exec(colour.trim());
  if (!match) return null;
  const hex = match[1]!;
  return `#${(hex.length === 3 ? [...hex].map((c) => c + c).join('') : hex).toLowerCase()}`;
}

/** Props of {@link TagEditor}. */
export interface TagEditorProps {
  readonly tags: readonly EditedTag[];
  readonly onChange: (tags: EditedTag[]) => void;
  /** Makes a fresh row id. */
  readonly newUid: () => string;
}

/** See the module comment. */
export function TagEditor({ tags, onChange, newUid }: TagEditorProps) {
  const legendId = useId();
  // After a move, focus stays on the moved tag's button (or its other one at the list's end).
  const focusAfterRef = useRef<{ uid: string; which: string } | null>(null);
  const setFocusAfter = (target: { uid: string; which: string }) => {
    focusAfterRef.current = target;
  };
  useEffect(() => {
    const focusAfter = focusAfterRef.current;
    if (!focusAfter) return;
    focusAfterRef.current = null;
    const wanted = document.getElementById(`${focusAfter.uid}-${focusAfter.which}`);
    const other = document.getElementById(
      `${focusAfter.uid}-${focusAfter.which === 'up' ? 'down' : 'up'}`,
    );
    const usable = (element: HTMLElement | null) =>
      element !== null && !(element instanceof HTMLButtonElement && element.disabled);
    const target = usable(wanted) ? wanted : other;
    target?.focus();
  });

  const update = (uid: string, change: Partial<EditedTag>) =>
    onChange(tags.map((tag) => (tag.uid === uid ? { ...tag, ...change } : tag)));
  const move = (index: number, by: -1 | 1) => {
    const tag = tags[index];
    if (!tag) return;
    onChange(moveItem(tags, index, index + by));
    setFocusAfter({ uid: tag.uid, which: by < 0 ? 'up' : 'down' });
  };
  const remove = (index: number) => {
    const next = tags.filter((_, i) => i !== index);
    onChange(next);
    const neighbour = next[index] ?? next[index - 1];
    setFocusAfter(
      neighbour ? { uid: neighbour.uid, which: 'name' } : { uid: legendId, which: 'add' },
    );
  };
  const add = () => {
    const uid = newUid();
    onChange([...tags, { uid, key: '', name: '', color: NEW_TAG_COLOUR, keyFollowsName: true }]);
    setFocusAfter({ uid, which: 'name' });
  };

  return (
    <fieldset className="admin-fieldset tag-editor" aria-labelledby={legendId}>
      <legend id={legendId} className="field-label">
        Tags (in the order agents see them)
      </legend>
      {tags.length === 0 && <p className="muted admin-hint">No tags: Contacted calls get none.</p>}
      <ol className="tag-editor-list">
        {tags.map((tag, index) => (
          <TagRow
            key={tag.uid}
            tag={tag}
            position={index + 1}
            count={tags.length}
            onChange={(change) => update(tag.uid, change)}
            onMove={(by) => move(index, by)}
            onRemove={() => remove(index)}
          />
        ))}
      </ol>
      <button
        id={`${legendId}-add`}
        type="button"
        className="btn btn-secondary btn-compact tag-editor-add"
        onClick={add}
      >
        Add tag
      </button>
    </fieldset>
  );
}

function TagRow({
  tag,
  position,
  count,
  onChange,
  onMove,
  onRemove,
}: {
  readonly tag: EditedTag;
  readonly position: number;
  readonly count: number;
  readonly onChange: (change: Partial<EditedTag>) => void;
  readonly onMove: (by: -1 | 1) => void;
  readonly onRemove: () => void;
}) {
  const id = tag.uid;
  const verdict = contrastVerdict(tag.color);
  const long = longHex(tag.color);
  const label = tag.name.trim() || `Tag ${position}`;
  return (
    <li className="tag-editor-row" aria-label={`Tag ${position} of ${count}: ${label}`}>
      <div className="tag-editor-fields">
        <div className="field">
          <label className="field-label" htmlFor={`${id}-name`}>
            Tag {position} name
          </label>
          <input
            id={`${id}-name`}
            className="input"
            value={tag.name}
            maxLength={50}
            autoComplete="off"
            onChange={(event) => {
              const name = event.target.value;
              onChange(tag.keyFollowsName ? { name, key: keyFromName(name) } : { name });
            }}
          />
        </div>
        <div className="field">
          <label className="field-label" htmlFor={`${id}-key`}>
            Tag {position} key
          </label>
          <input
            id={`${id}-key`}
            className="input"
            value={tag.key}
            maxLength={50}
            autoComplete="off"
            spellCheck={false}
            aria-describedby={`${id}-key-hint`}
            onChange={(event) => onChange({ key: event.target.value, keyFollowsName: false })}
          />
          <p id={`${id}-key-hint`} className="admin-hint">
            Lower-case letters, digits, - and _; what reports and the API see.
          </p>
        </div>
        <div className="field">
          <span className="field-label" id={`${id}-colour-label`}>
            Tag {position} colour
          </span>
          <div className="tag-editor-colour">
            <input
              id={`${id}-picker`}
              type="color"
              className="tag-colour-picker"
              value={long ?? '#000000'}
              aria-label={`Tag ${position} colour picker`}
              onChange={(event) => onChange({ color: event.target.value })}
            />
            <input
              id={`${id}-hex`}
              className="input tag-colour-hex"
              value={tag.color}
              maxLength={7}
              spellCheck={false}
              autoComplete="off"
              aria-label={`Tag ${position} colour (hex)`}
              aria-describedby={`${id}-contrast`}
              onChange={(event) => onChange({ color: event.target.value })}
            />
          </div>
        </div>
      </div>
      <div className="tag-editor-preview">
        <span
          className="tag-chip"
          style={long ? { backgroundColor: long, color: readableTextOn(long) } : undefined}
          aria-hidden="true"
        >
          {label}
        </span>
        <p
          id={`${id}-contrast`}
          className={`tag-contrast ${verdict.readable ? 'is-readable' : 'is-low'}`}
          aria-live="polite"
        >
          {verdict.text}
        </p>
      </div>
      <div className="tag-editor-actions">
        <button
          id={`${id}-up`}
          type="button"
          aria-label={`Move up ${label}`}
          className="btn btn-secondary btn-compact"
          disabled={position === 1}
          onClick={() => onMove(-1)}
        >
          Move up
        </button>
        <button
          id={`${id}-down`}
          type="button"
          aria-label={`Move down ${label}`}
          className="btn btn-secondary btn-compact"
          disabled={position === count}
          onClick={() => onMove(1)}
        >
          Move down
        </button>
        <button
          id={`${id}-remove`}
          type="button"
          aria-label={`Remove ${label}`}
          className="btn btn-secondary btn-compact"
          onClick={onRemove}
        >
          Remove
        </button>
      </div>
    </li>
  );
}
