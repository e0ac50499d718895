/**
 * The parts every admin list has: a search box (searched on submit: Enter or the Search
 * button), Previous / Next with 'Page X of Y', and the list's loading / empty / error lines.
 */
import { useId, useState, type ReactNode } from 'react';
import { errorMessage } from '../errors';
import { ErrorBanner } from '../ui/error-banner';
import type { AdminList } from './use-admin-list';

/** The search box of a list of `noun`s (plural, lower case, as in 'Search users'). */
export function SearchForm({
  noun,
  list,
}: {
  readonly noun: string;
  readonly list: Pick<AdminList<unknown>, 'search' | 'submitSearch'>;
}) {
  const id = useId();
  const [text, setText] = useState(list.search);
  return (
    <form
      className="admin-search"
      role="search"
      aria-label={`Search ${noun}`}
      onSubmit={(event) => {
        event.preventDefault();
        list.submitSearch(text);
      }}
    >
      <label className="sr-only" htmlFor={id}>
        Search {noun}
      </label>
      <input
        id={id}
        className="input"
        type="search"
        value={text}
        placeholder={`Search ${noun}`}
        maxLength={100}
        onChange={(event) => setText(event.target.value)}
      />
      <button type="submit" className="btn btn-secondary">
        Search
      </button>
    </form>
  );
}

/** Previous / Next with 'Page X of Y'. */
export function Pager({
  list,
}: {
  readonly list: Pick<AdminList<unknown>, 'page' | 'lastPage' | 'setPage'>;
}) {
  return (
    <nav className="pager" aria-label="Pages">
      <button
        type="button"
        className="btn btn-secondary"
        disabled={list.page <= 1}
        onClick={() => list.setPage(list.page - 1)}
      >
        Previous
      </button>
      <span className="pager-position">
        Page {Math.min(list.page, list.lastPage)} of {list.lastPage}
      </span>
      <button
        type="button"
        className="btn btn-secondary"
        disabled={list.page >= list.lastPage}
        onClick={() => list.setPage(list.page + 1)}
      >
        Next
      </button>
    </nav>
  );
}

/**
 * The list's rows as a table (stacked into labelled lines on narrow screens), or 'Loading…',
 * or what it says when there are none; the list's error above it.
 */
export function ListBody<T>({
  list,
  caption,
  empty,
  children,
}: {
  readonly list: Pick<AdminList<T>, 'rows' | 'error' | 'search'>;
  /** The table's caption (names it for screen readers). */
  readonly caption: string;
  /** What an empty list says. */
  readonly empty: string;
  /** The table's head and body for `rows`. */
  readonly children: (rows: readonly T[]) => ReactNode;
}) {
  const { rows } = list;
  return (
    <>
      <ErrorBanner message={list.error ? errorMessage(list.error) : null} />
      {rows === undefined ? (
        <p className="list-empty">Loading…</p>
      ) : rows.length === 0 ? (
        <p className="list-empty">{list.search ? `Nothing matches '${list.search}'.` : empty}</p>
      ) : (
        <div className="admin-table-wrap">
          <table className="admin-table">
            <caption className="sr-only">{caption}</caption>
            {children(rows)}
          </table>
        </div>
      )}
    </>
  );
}
