/**
 * Contact messaging (interface.md §Messaging and contacts, DESIGN decision 6,
 * reference-rpc-messaging.md §3.1): `addContact`, `acceptContact`, `contacts`, `removeContact`,
 * `sendChatMessage`, `getLastMessages`, `sendAppMessage`, and QuIXI's `sendSpixiMessage` and
 * `sendAppData`. Every refusal is -32602 with interface.md's exact text where it has one
 * (`contact doesn't exist`, `contact already added`, `data parameter is missing`, `address
 * parameter is missing`), the reference's for QuIXI's methods, and a sentence naming the rule for
 * bad addresses, oversized payloads and out-of-range channels. The service lives on client nodes;
 * elsewhere every operation answers -32601.
 */
import { MessagingRequestError, MessagingService, MAX_CHANNEL, MAX_LAST_MESSAGES } from '../../messaging/service.js';
import type { NodeModules } from '../../node/modules.js';
import { invalidParams, methodFor, RpcCode, RpcError } from '../types.js';

/** The modules these operations use. */
export type MessagingModules = Pick<NodeModules, 'messaging'>;

const method = methodFor<MessagingModules>();

const GROUP = 'Messaging';

/**
 * The node's messaging service. A master or relay has none: -32601 as for any operation this node
 * does not serve (a reference DLT node has no such method; a light node's refusals use the same
 * code), not -32602, which tells the caller its parameters are wrong.
 */
function service(m: MessagingModules): MessagingService {
  if (!m.messaging) throw new RpcError(RpcCode.MethodNotFound, 'Contact messaging runs on client nodes: start the node with --role client');
  return m.messaging;
}

/** Runs an operation of the service, its refusals as -32602 with their text. */
async function call<T>(fn: () => T | Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof MessagingRequestError) throw invalidParams(err.message);
    throw err;
  }
}

const address = { name: 'address', kind: 'string', required: true, description: 'Base58 wallet address of the contact', missingMessage: 'address parameter is missing' } as const;
const channelParam = {
  name: 'channel',
  kind: 'integer',
  required: true,
  min: -1,
  max: MAX_CHANNEL,
  description: 'Channel id multiplexing the streams of one contact (chat uses 0)',
  missingMessage: 'channel parameter is missing',
} as const;

export const messagingMethods = [
  method({
    name: 'addContact',
    group: GROUP,
    maturity: 'Finalized',
    summary: 'Adds a contact and sends it a contact request over the relays',
    params: [address],
    result: { description: 'the new Contact object (approved false until the secure channel exists)' },
    handler: (p, m) => call(() => service(m).addContact(MessagingService.parseAddress(p.address))),
  }),
  method({
    name: 'acceptContact',
    group: GROUP,
    summary: "Accepts a contact's request: sends the accept with fresh session key material",
    params: [address],
    result: { description: 'the Contact object' },
    handler: (p, m) => call(() => service(m).acceptContact(MessagingService.parseAddress(p.address))),
  }),
  method({
    name: 'contacts',
    group: GROUP,
    summary: 'Every contact, sorted by nickname',
    params: [],
    result: { description: 'array of Contact objects' },
    handler: (_p, m) => call(() => service(m).listContacts()),
  }),
  method({
    name: 'removeContact',
    group: GROUP,
    summary: 'Removes a contact, its message history and its pending messages',
    params: [address],
    result: { description: 'the removed Contact object' },
    handler: (p, m) => call(() => service(m).removeContact(MessagingService.parseAddress(p.address))),
  }),
  method({
    name: 'sendChatMessage',
    group: GROUP,
    summary: 'Sends a chat message (stored in the history; queued until the contact confirms it)',
    params: [address, { name: 'message', kind: 'string', required: true, description: 'UTF-8 text', missingMessage: 'message parameter is missing' }, { ...channelParam, min: 0 }],
    result: { description: 'the Contact object (as the reference)' },
    handler: (p, m) =>
      call(() => {
        const s = service(m);
        const a = MessagingService.parseAddress(p.address);
        return s.sendChatMessage(a, p.message, p.channel);
      }),
  }),
  method({
    name: 'getLastMessages',
    group: GROUP,
    maturity: 'Finalized',
    summary: 'The most recent messages of a contact and channel, oldest first',
    params: [
      address,
      { name: 'count', kind: 'integer', default: 10, min: 0, max: MAX_LAST_MESSAGES, description: `Maximum number of messages (at most ${MAX_LAST_MESSAGES})` },
      { name: 'channel', kind: 'integer', default: 0, min: -1, max: MAX_CHANNEL, description: 'Channel id; text chat uses 0' },
    ],
    result: { description: 'array of Message objects, oldest to newest' },
    handler: (p, m) => call(() => service(m).lastMessages(MessagingService.parseAddress(p.address), p.count, p.channel)),
  }),
  method({
    name: 'sendAppMessage',
    group: GROUP,
    maturity: 'Finalized',
    summary: 'Sends typed application data to an approved contact, end-to-end encrypted; fire-and-forget, not stored',
    params: [
      address,
      { name: 'type', kind: 'integer', required: true, min: 0, max: 255, description: 'AppMessageCode: how the recipient reads the payload', missingMessage: 'type parameter is missing' },
      { name: 'data', kind: 'hex', required: true, description: 'Payload as hexadecimal', missingMessage: 'data parameter is missing' },
      channelParam,
    ],
    result: { description: "the recipient's Contact object" },
    handler: (p, m) => call(() => service(m).sendSpixiMessage(MessagingService.parseAddress(p.address), p.type, p.data, p.channel, { requireChannel: true })),
  }),
  method({
    name: 'sendSpixiMessage',
    group: GROUP,
    summary: 'QuIXI: sends a raw message of a SpixiMessageCode (queued and retried until confirmed; not stored)',
    params: [
      address,
      { name: 'type', kind: 'integer', required: true, min: 0, max: 255, description: 'SpixiMessageCode', missingMessage: 'type parameter is missing' },
      { name: 'data', kind: 'hex', required: true, description: 'Payload as hexadecimal', missingMessage: 'data parameter is missing' },
      channelParam,
    ],
    result: { description: 'the Contact object' },
    handler: (p, m) => call(() => service(m).sendSpixiMessage(MessagingService.parseAddress(p.address), p.type, p.data, p.channel, { requireChannel: false })),
  }),
  method({
    name: 'sendAppData',
    group: GROUP,
    summary: 'QuIXI: sends mini-app data by app id (session) or protocol id; fire-and-forget, not stored',
    params: [
      address,
      { name: 'appId', kind: 'string', description: 'Mini-app id (its session id is derived); wins over protocolId' },
      { name: 'protocolId', kind: 'string', description: 'App protocol id (e.g. com.ixilabs.gatecontrol)' },
      { name: 'data', kind: 'string', required: true, description: 'UTF-8 text', missingMessage: 'data parameter is missing' },
    ],
    result: { description: 'the Contact object' },
    handler: (p, m) =>
      call(() => {
        if (!p.appId && !p.protocolId) throw new MessagingRequestError('appId or protocolId parameter is missing');
        const target = p.appId ? { appId: p.appId } : { protocolId: p.protocolId };
        return service(m).sendAppData(MessagingService.parseAddress(p.address), target, p.data);
      }),
  }),
];
