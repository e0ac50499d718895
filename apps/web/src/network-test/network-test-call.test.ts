/**
 * The network test's call through the console controller (`placeNetworkTestCall`): placed on the
 * agent's phone only while the console waits with the phone ready, invisible to the console,
 * and New Call refused while it is up.
 */
import { describe, expect, it, vi } from 'vitest';
import { ApiClient } from '../api/api-client';
import { FakeApi, demoCallUser, demoUser } from '../test-support/fake-api';
import { ConsoleController } from '../console/console-controller';
import { NETWORK_TEST_ERRORS } from '../constants';
import { FakePhone } from '../test-support/fake-phone';
import { createFakePlatform } from '../test-support/fake-platform';

const LEAD_CALL_USER = 42;
const PARAMS = { network_test: 'NT1' };

async function setup() {
  const server = new FakeApi([{ user: demoUser(), password: 'pw' }]).signIn();
  server.addCallUser(LEAD_CALL_USER, demoCallUser());
  const platform = createFakePlatform(server.fetch);
  const phone = new FakePhone();
  const api = new ApiClient({
    fetch: server.fetch,
    reload: () => platform.reload(),
    now: () => platform.clock.now(),
  });
  const controller = new ConsoleController({
    api,
    writes: api,
    phoneFactory: phone.factory,
    timers: platform.timers,
    clock: platform.clock,
    log: platform.log,
    alert: (message) => platform.alert(message),
  });
  const loaded = await api.getUser();
  if (!loaded) throw new Error('no user');
  return { controller, phone, loaded, server };
}

describe('the network test call through the console', () => {
  it('is placed with the params on the ready phone while waiting, and the console shows none of it', async () => {
    const { controller, phone, loaded } = await setup();
    controller.startPhone(loaded);
    await vi.waitFor(() => expect(controller.getSnapshot().phone).toBe('ready'));
    const before = controller.getSnapshot();
    const call = await controller.placeNetworkTestCall(PARAMS);
    expect(phone.device.lastOutgoing).toBe(call);
    expect(phone.device.lastOutgoing.connectParams).toEqual(PARAMS);
    phone.device.lastOutgoing.answerRemotely();
    expect(controller.getSnapshot()).toBe(before);
    call.disconnect();
    expect(controller.state.view).toBe('waiting');
  });

  it('is refused before the phone is ready', async () => {
    const { controller } = await setup();
    await expect(controller.placeNetworkTestCall(PARAMS)).rejects.toThrow(
      NETWORK_TEST_ERRORS.notWaiting,
    );
  });

  it('is refused while a lead rings or the agent is on a call, and while another test is up', async () => {
    const { controller, phone, loaded } = await setup();
    controller.startPhone(loaded);
    await vi.waitFor(() => expect(controller.getSnapshot().phone).toBe('ready'));
    phone.device.ring(LEAD_CALL_USER);
    await vi.waitFor(() => expect(controller.state.view).toBe('ringing'));
    await expect(controller.placeNetworkTestCall(PARAMS)).rejects.toThrow(
      NETWORK_TEST_ERRORS.notWaiting,
    );
    controller.accept();
    expect(controller.state.view).toBe('oncall');
    await expect(controller.placeNetworkTestCall(PARAMS)).rejects.toThrow(
      NETWORK_TEST_ERRORS.notWaiting,
    );
    expect(phone.device.calls.filter((c) => c.direction === 'outgoing')).toEqual([]);
  });

  it('New Call is refused while the test call is up, and allowed once it is over', async () => {
    const { controller, phone, loaded, server } = await setup();
    controller.startPhone(loaded);
    await vi.waitFor(() => expect(controller.getSnapshot().phone).toBe('ready'));
    const call = await controller.placeNetworkTestCall(PARAMS);
    await expect(controller.placeNetworkTestCall(PARAMS)).rejects.toThrow(
      NETWORK_TEST_ERRORS.notWaiting,
    );
    const request = { fname: 'Ida', lname: '', phoneNumber: '+15550100042', callerId: null };
    await expect(controller.placeCall(request)).rejects.toThrow(/network test is running/);
    expect(server.placedCalls).toEqual([]);
    call.disconnect();
    await controller.placeCall(request);
    expect(server.placedCalls).toHaveLength(1);
    expect(phone.device.lastOutgoing).not.toBe(call);
  });
});
