/**
 * The Settings panel in the whole app (fake server and phone): the entry in the bottom
 * navigation, Auto Accept by permission and saved on the server, Copy Error Logs only with logs,
 * the version, Update.
 */
import type { User } from '@leadline/contracts';
import { act, render, screen, waitFor, within } from '@testing-library/react';
import { userEvent } from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { FakeApi, demoUser } from '../test-support/fake-api';
import { createQueryClient } from '../api/queries';
import { App } from '../app';
import { ERROR_LOG_MAX_LINES } from '../constants';
import { FakePhone } from '../test-support/fake-phone';
import { createFakePlatform } from '../test-support/fake-platform';

async function openSettings(user: Partial<User> = {}) {
  const server = new FakeApi([{ user: demoUser(user), password: 'pw' }]).signIn();
  const platform = createFakePlatform(server.fetch);
  const phone = new FakePhone();
  const events = userEvent.setup();
  render(
    <App phoneFactory={phone.factory} platform={platform} queryClient={createQueryClient()} />,
  );
  expect(await screen.findByText('Phone ready')).toBeVisible();
  const entry = within(screen.getByRole('navigation', { name: 'Console' })).getByRole('button', {
    name: 'Settings',
  });
  await events.click(entry);
  const panel = screen.getByRole('region', { name: 'Settings' });
  return { server, platform, phone, user: events, panel, entry };
}

describe('the Settings panel', () => {
  it('opens from Settings with its title focused, the version, and closes', async () => {
    const { user, panel, entry } = await openSettings();
    expect(entry).toBeEnabled();
    expect(entry).toHaveAttribute('aria-expanded', 'true');
    expect(within(panel).getByRole('heading', { name: 'Settings' })).toHaveFocus();
    expect(within(panel).getByText('Version 1.9.9')).toBeVisible();
    await user.keyboard('{Escape}');
    expect(screen.queryByRole('region', { name: 'Settings' })).toBeNull();
    expect(screen.getByRole('heading', { name: 'Waiting for lead...' })).toBeVisible();
  });

  it('has no Auto Accept without app-autoaccept', async () => {
    const { panel } = await openSettings({ permissions: ['app-sms'] });
    expect(within(panel).queryByRole('switch')).toBeNull();
  });

  it('Auto Accept (app-autoaccept) shows the stored value and saves a change on the server', async () => {
    const { server, user, panel } = await openSettings({
      permissions: ['app-autoaccept'],
      autoaccept: false,
    });
    const toggle = within(panel).getByRole('switch', { name: 'Auto Accept' });
    expect(toggle).toHaveAttribute('aria-checked', 'false');
    expect(toggle).toHaveTextContent('OFF');
    await user.click(toggle);
    await waitFor(() => expect(toggle).toHaveAttribute('aria-checked', 'true'));
    expect(toggle).toHaveTextContent('ON');
    expect(server.requestsTo('PUT', '/api/v1/user/settings').map((r) => r.body)).toEqual([
      { autoaccept: true },
    ]);
    // Reopened, it still says ON (the loaded user was updated).
    await user.keyboard('{Escape}');
    await user.click(
      within(screen.getByRole('navigation', { name: 'Console' })).getByRole('button', {
        name: 'Settings',
      }),
    );
    expect(screen.getByRole('switch', { name: 'Auto Accept' })).toHaveAttribute(
      'aria-checked',
      'true',
    );
  });

  it('a refused Auto Accept change says why and shows the stored value', async () => {
    const { server, user, panel } = await openSettings({
      permissions: ['app-autoaccept'],
      autoaccept: true,
    });
    server.refuseNext('PUT', '/api/v1/user/settings', 503, 'Try again in a minute.');
    const toggle = within(panel).getByRole('switch', { name: 'Auto Accept' });
    await user.click(toggle);
    expect(await within(panel).findByRole('alert')).toHaveTextContent('Try again in a minute.');
    expect(toggle).toHaveAttribute('aria-checked', 'true');
  });

  it('Copy Error Logs appears only with logs, copies the timestamped log and alerts', async () => {
    const { user, panel, platform, phone, entry } = await openSettings();
    expect(within(panel).queryByRole('button', { name: 'Copy Error Logs' })).toBeNull();
    await user.click(entry);
    act(() => {
      phone.device.fail(31000, 'Cannot establish connection. Client is disconnected');
    });
    await user.click(entry);
    await user.click(screen.getByRole('button', { name: 'Copy Error Logs' }));
    await waitFor(() => expect(platform.alerts).toEqual(['Copied error logs to clipboard!']));
    expect(platform.copied).toEqual([
      '[2025-01-06T09:00:00.000Z] softphone device error DeviceError (31000): Cannot establish connection. Client is disconnected',
    ]);
  });

  it('Copy Error Logs appears with the first log line while Settings is open', async () => {
    const { user, panel, platform, phone } = await openSettings();
    expect(within(panel).queryByRole('button', { name: 'Copy Error Logs' })).toBeNull();
    act(() => {
      phone.device.fail(31000, 'Error creating the offer');
    });
    const copy = await within(panel).findByRole('button', { name: 'Copy Error Logs' });
    await user.click(copy);
    await waitFor(() => expect(platform.alerts).toEqual(['Copied error logs to clipboard!']));
    expect(platform.copied).toEqual([
      '[2025-01-06T09:00:00.000Z] softphone device error DeviceError (31000): Error creating the offer',
    ]);
    // A later line goes into the next copy, without reopening Settings.
    act(() => {
      phone.device.fail(31000, 'Error processing answer');
    });
    await user.click(copy);
    await waitFor(() => expect(platform.copied).toHaveLength(2));
    expect(platform.copied[1]!.split('\n')).toHaveLength(2);
  });

  it('the error log keeps only its newest lines', async () => {
    const { user, platform, phone, entry } = await openSettings();
    await user.click(entry);
    act(() => {
      for (let i = 1; i <= ERROR_LOG_MAX_LINES + 5; i += 1) phone.device.fail(31000, `error ${i}`);
    });
    await user.click(entry);
    await user.click(screen.getByRole('button', { name: 'Copy Error Logs' }));
    await waitFor(() => expect(platform.copied).toHaveLength(1));
    const lines = platform.copied[0]!.split('\n');
    expect(lines).toHaveLength(ERROR_LOG_MAX_LINES);
    expect(lines[0]).toContain('error 6');
    expect(lines.at(-1)).toContain(`error ${ERROR_LOG_MAX_LINES + 5}`);
  });

  it('lists the microphones, speakers and ringers; a choice applies at once and is remembered', async () => {
    const { user, panel, phone, platform } = await openSettings();
    const microphone = within(panel).getByRole('combobox', { name: 'Microphone' });
    expect(within(panel).getByRole('combobox', { name: 'Speaker' })).toBeEnabled();
    expect(within(panel).getByRole('combobox', { name: 'Ringer' })).toBeEnabled();
    await user.selectOptions(microphone, 'Built-in Microphone');
    await waitFor(() => expect(phone.device.audio.inputDevice?.deviceId).toBe('built-in-mic'));
    expect(platform.storage.get('leadline.audio.input')).toBe('built-in-mic');
  });

  it('the remembered devices are applied when the phone registers, and again when plugged back in', async () => {
    const server = new FakeApi([{ user: demoUser(), password: 'pw' }]).signIn();
    const platform = createFakePlatform(server.fetch);
    platform.storage.set('leadline.audio.input', 'headset-mic');
    platform.storage.set('leadline.audio.speaker', 'built-in-speakers');
    const phone = new FakePhone();
    render(
      <App phoneFactory={phone.factory} platform={platform} queryClient={createQueryClient()} />,
    );
    expect(await screen.findByText('Phone ready')).toBeVisible();
    const audio = phone.device.audio;
    // The speaker is listed and applied; the headset is not plugged in yet.
    await waitFor(() =>
      expect([...audio.speakerDevices.get()].map((d) => d.deviceId)).toEqual(['built-in-speakers']),
    );
    expect(audio.inputDevice?.deviceId ?? 'default').toBe('default');
    act(() => audio.plug({ inputs: [{ deviceId: 'headset-mic', label: 'USB Headset' }] }));
    await waitFor(() => expect(audio.inputDevice?.deviceId).toBe('headset-mic'));
  });

  it('Update reloads the console', async () => {
    const { user, panel, platform } = await openSettings();
    await user.click(within(panel).getByRole('button', { name: 'Update' }));
    expect(platform.reloadCount).toBe(1);
  });
});
