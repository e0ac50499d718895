import { render, screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { BottomNav, type NavPanel } from './bottom-nav';

const panel = (panelId: string): NavPanel => ({ open: false, panelId, onToggle: () => undefined });

function renderNav(conference: NavPanel | null) {
  render(
    <BottomNav
      newCallOpen={false}
      newCallPanelId="new-call"
      onToggleNewCall={() => undefined}
      onPrefetchNewCall={() => undefined}
      callButtonRef={null}
      history={panel('history')}
      settings={panel('settings')}
      conference={conference}
    />,
  );
  return screen.getByRole('navigation', { name: 'Console' });
}

/** The entries in document order, hidden ones included, and whether each is hidden. */
const entries = (nav: HTMLElement) =>
  within(nav)
    .getAllByRole('button', { hidden: true })
    .map((b) => ({ name: b.textContent, hidden: b.hidden }));

// Spec §2: "Bottom navigation in the waiting state: Call, Conference (hidden), History, Settings."
describe('BottomNav (spec §2: Call, Conference (hidden), History, Settings)', () => {
  it('has the entries in the spec’s order, Conference present but hidden', () => {
    const nav = renderNav(null);
    expect(entries(nav)).toEqual([
      { name: 'Call', hidden: false },
      { name: 'Conference', hidden: true },
      { name: 'History', hidden: false },
      { name: 'Settings', hidden: false },
    ]);
    expect(screen.getAllByRole('button').map((b) => b.textContent)).toEqual([
      'Call',
      'History',
      'Settings',
    ]);
  });

  it('shows Conference in its place for a supervisor', () => {
    renderNav(panel('conference'));
    expect(screen.getAllByRole('button').map((b) => b.textContent)).toEqual([
      'Call',
      'Conference',
      'History',
      'Settings',
    ]);
  });
});
