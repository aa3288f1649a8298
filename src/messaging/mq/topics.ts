/**
 * Topic names of the QuIXI message-queue bridge (reference-quixi-events.md §1.2): the bare event
 * names, never a suffix; and which SpixiMessageCode publishes to which topic (§1.6).
 */
import { SpixiMessageCode as C } from '../spixi-message.js';

/** The 30 stream-event topics, in QuIXI's order. */
export const STREAM_TOPICS = [
  'Chat', 'Nick', 'SentFunds', 'RequestFunds', 'MsgRead', 'MsgReceived', 'FileData', 'RequestFileData', 'FileHeader',
  'AcceptFile', 'RequestFundsResponse', 'AcceptAddBot', 'AppData', 'AppRequest', 'FileFullyReceived', 'Avatar',
  'AppRequestAccept', 'AppRequestReject', 'AppRequestError', 'AppEndSession', 'BotAction', 'MsgDelete', 'MsgReaction',
  'MsgTyping', 'LeaveConfirmed', 'RequestAdd2', 'AcceptAdd2', 'GetAppProtocols', 'AppProtocols', 'AppProtocolData',
] as const;
/** The 4 node-event topics. */
export const NODE_TOPICS = ['FriendStatusUpdate', 'MessageSent', 'MessageExpired', 'TransactionStatusUpdate'] as const;
export const MQ_TOPICS = [...STREAM_TOPICS, ...NODE_TOPICS] as const;

export type StreamTopic = (typeof STREAM_TOPICS)[number];
export type NodeTopic = (typeof NODE_TOPICS)[number];
export type MqTopic = StreamTopic | NodeTopic;

/** SpixiMessageCode → stream topic (§1.6); codes not listed are never published (keys, getNick…). */
export const TOPIC_OF_CODE: ReadonlyMap<number, StreamTopic> = new Map<number, StreamTopic>([
  [C.chat, 'Chat'], [C.nick, 'Nick'], [C.sentFunds, 'SentFunds'], [C.requestFunds, 'RequestFunds'], [C.msgRead, 'MsgRead'],
  [C.msgReceived, 'MsgReceived'], [C.fileData, 'FileData'], [C.requestFileData, 'RequestFileData'], [C.fileHeader, 'FileHeader'],
  [C.acceptFile, 'AcceptFile'], [C.requestFundsResponse, 'RequestFundsResponse'], [C.acceptAddBot, 'AcceptAddBot'],
  [C.appData, 'AppData'], [C.appRequest, 'AppRequest'], [C.fileFullyReceived, 'FileFullyReceived'], [C.avatar, 'Avatar'],
  [C.appRequestAccept, 'AppRequestAccept'], [C.appRequestReject, 'AppRequestReject'], [C.appRequestError, 'AppRequestError'],
  [C.appEndSession, 'AppEndSession'], [C.botAction, 'BotAction'], [C.msgDelete, 'MsgDelete'], [C.msgReaction, 'MsgReaction'],
  [C.msgTyping, 'MsgTyping'], [C.leaveConfirmed, 'LeaveConfirmed'],
  [C.requestAdd2, 'RequestAdd2'], [C.requestAdd, 'RequestAdd2'], // legacy requestAdd publishes as RequestAdd2
  [C.acceptAdd2, 'AcceptAdd2'], [C.acceptAdd, 'AcceptAdd2'], // legacy acceptAdd publishes as AcceptAdd2
  [C.getAppProtocols, 'GetAppProtocols'], [C.appProtocols, 'AppProtocols'], [C.appProtocolData, 'AppProtocolData'],
]);

/** The topic a received SpixiMessage of `code` publishes to, or null (never published). */
export const topicOfCode = (code: number): StreamTopic | null => TOPIC_OF_CODE.get(code) ?? null;
