/** Every rule, one per file; the order is the order findings of one frame are reported in. */
import type { Rule } from '../rule.js';
import { notJson } from './not-json.js';
import { blankLine } from './blank-line.js';
import { invalidUtf8 } from './invalid-utf8.js';
import { batch } from './batch.js';
import { notAMessage } from './not-a-message.js';
import { jsonrpcVersion } from './jsonrpc-version.js';
import { resultAndError } from './result-and-error.js';
import { invalidId } from './invalid-id.js';
import { nullRequestId } from './null-request-id.js';
import { responseUnknownId } from './response-unknown-id.js';
import { duplicateRequestId } from './duplicate-request-id.js';
import { unansweredRequest } from './unanswered-request.js';
import { tooManyPendingRequests } from './too-many-pending-requests.js';
import { notificationSentAsRequest } from './notification-sent-as-request.js';
import { requestSentAsNotification } from './request-sent-as-notification.js';
import { wrongDirection } from './wrong-direction.js';
import { unknownMethod } from './unknown-method.js';
import { errorObject } from './error-object.js';
import { absolutePath } from './absolute-path.js';
import { additionalDirectoriesUnadvertised } from './additional-directories-unadvertised.js';
import { advertisedMethodNotFound } from './advertised-method-not-found.js';
import { authRequiredAfterAuthenticate } from './auth-required-after-authenticate.js';
import { authRequired } from './auth-required.js';
import { authTerminalUnadvertised } from './auth-terminal-unadvertised.js';
import { authenticateTerminalMethod } from './authenticate-terminal-method.js';
import { authenticateUnknownMethod } from './authenticate-unknown-method.js';
import { cancelIdle } from './cancel-idle.js';
import { cancelRequestAnswer } from './cancel-request-answer.js';
import { cancelRequestUnknown } from './cancel-request-unknown.js';
import { cancelRequestWrongSide } from './cancel-request-wrong-side.js';
import { cancelStopReason } from './cancel-stop-reason.js';
import { cancelToolCallsOpen } from './cancel-tool-calls-open.js';
import { capabilityNotAdvertised } from './capability-not-advertised.js';
import { clientCallOutsideTurn } from './client-call-outside-turn.js';
import { compactionChunkOrder } from './compaction-chunk-order.js';
import { compactionErrorStatus } from './compaction-error-status.js';
import { compactionSummaryStatus } from './compaction-summary-status.js';
import { compactionUnadvertised } from './compaction-unadvertised.js';
import { concurrentPrompt } from './concurrent-prompt.js';
import { configBooleanUnadvertised } from './config-boolean-unadvertised.js';
import { configOptionUnknown } from './config-option-unknown.js';
import { elicitationCompleteUnknown } from './elicitation-complete-unknown.js';
import { elicitationContentMismatch } from './elicitation-content-mismatch.js';
import { elicitationUnadvertised } from './elicitation-unadvertised.js';
import { initializeFirst } from './initialize-first.js';
import { initializeOnce } from './initialize-once.js';
import { invalidParams } from './invalid-params.js';
import { invalidResult } from './invalid-result.js';
import { loadHistoryAfterResponse } from './load-history-after-response.js';
import { mcpServerUnadvertised } from './mcp-server-unadvertised.js';
import { missingAgentInfo } from './missing-agent-info.js';
import { missingClientInfo } from './missing-client-info.js';
import { modeUpdateUnadvertised } from './mode-update-unadvertised.js';
import { negativeValue } from './negative-value.js';
import { permissionAfterCancel } from './permission-after-cancel.js';
import { permissionNotCancelled } from './permission-not-cancelled.js';
import { permissionOptionUnknown } from './permission-option-unknown.js';
import { planUpdateUnadvertised } from './plan-update-unadvertised.js';
import { promptBlockUnadvertised } from './prompt-block-unadvertised.js';
import { promptDuringCancel } from './prompt-during-cancel.js';
import { recordingGap } from './recording-gap.js';
import { requiredMethodNotFound } from './required-method-not-found.js';
import { resumeReplaysHistory } from './resume-replays-history.js';
import { sessionClosed } from './session-closed.js';
import { sessionIdReused } from './session-id-reused.js';
import { sessionUnknown } from './session-unknown.js';
import { setModeUnadvertised } from './set-mode-unadvertised.js';
import { terminalNotReleased } from './terminal-not-released.js';
import { terminalOutputLimit } from './terminal-output-limit.js';
import { terminalReleased } from './terminal-released.js';
import { terminalUnknown } from './terminal-unknown.js';
import { toolCallDuplicate } from './tool-call-duplicate.js';
import { toolCallTerminalUnknown } from './tool-call-terminal-unknown.js';
import { toolCallUnknown } from './tool-call-unknown.js';
import { unknownValue } from './unknown-value.js';
import { unknownVariant } from './unknown-variant.js';
import { updateOutsideTurn } from './update-outside-turn.js';
import { versionMismatch } from './version-mismatch.js';
import { versionNotV1 } from './version-not-v1.js';
import { versionUnusable } from './version-unusable.js';
import { authMethodDuplicate } from './auth-method-duplicate.js';
import { elicitationIdReused } from './elicitation-id-reused.js';
import { positionEncodingUnoffered } from './position-encoding-unoffered.js';
import { messageIdReused } from './message-id-reused.js';
import { elicitationScopeUnknown } from './elicitation-scope-unknown.js';
import { elicitationCompleteEnded } from './elicitation-complete-ended.js';
import { exitStatusConflict } from './exit-status-conflict.js';
import { authAfterLogout } from './auth-after-logout.js';
import { sessionDeletedListed } from './session-deleted-listed.js';
import { toolCallStatusRegressed } from './tool-call-status-regressed.js';
import { listCursorUnknown } from './list-cursor-unknown.js';
import { terminalIdReused } from './terminal-id-reused.js';
import { terminalExitStatusMissing } from './terminal-exit-status-missing.js';
import { elicitationPropertyNotPrimitive } from './elicitation-property-not-primitive.js';
import { promptWhileLoading } from './prompt-while-loading.js';
import { turnEndedWithPendingRequests } from './turn-ended-with-pending-requests.js';
import { unknownField } from './unknown-field.js';
import { invalidFormat } from './invalid-format.js';
import { unstableField } from './unstable-field.js';
import { transportConnectionIdMissing } from './transport-connection-id-missing.js';
import { transportSessionHeader } from './transport-session-header.js';
import { transportAcceptedStatus } from './transport-accepted-status.js';
import { transportWrongStream } from './transport-wrong-stream.js';
import { transportPostContentType } from './transport-post-content-type.js';
import { transportResponseContentType } from './transport-response-content-type.js';

export const ALL_RULES: readonly Rule[] = [
  notJson,
  blankLine,
  invalidUtf8,
  batch,
  notAMessage,
  jsonrpcVersion,
  resultAndError,
  invalidId,
  nullRequestId,
  responseUnknownId,
  duplicateRequestId,
  unansweredRequest,
  tooManyPendingRequests,
  notificationSentAsRequest,
  requestSentAsNotification,
  wrongDirection,
  unknownMethod,
  errorObject,
  absolutePath,
  additionalDirectoriesUnadvertised,
  advertisedMethodNotFound,
  authRequiredAfterAuthenticate,
  authRequired,
  authTerminalUnadvertised,
  authenticateTerminalMethod,
  authenticateUnknownMethod,
  cancelIdle,
  cancelRequestAnswer,
  cancelRequestUnknown,
  cancelRequestWrongSide,
  cancelStopReason,
  cancelToolCallsOpen,
  capabilityNotAdvertised,
  clientCallOutsideTurn,
  compactionChunkOrder,
  compactionErrorStatus,
  compactionSummaryStatus,
  compactionUnadvertised,
  concurrentPrompt,
  configBooleanUnadvertised,
  configOptionUnknown,
  elicitationCompleteUnknown,
  elicitationContentMismatch,
  elicitationUnadvertised,
  initializeFirst,
  initializeOnce,
  invalidParams,
  invalidResult,
  loadHistoryAfterResponse,
  mcpServerUnadvertised,
  missingAgentInfo,
  missingClientInfo,
  modeUpdateUnadvertised,
  negativeValue,
  invalidFormat,
  permissionAfterCancel,
  permissionNotCancelled,
  permissionOptionUnknown,
  planUpdateUnadvertised,
  promptBlockUnadvertised,
  promptDuringCancel,
  recordingGap,
  requiredMethodNotFound,
  resumeReplaysHistory,
  sessionClosed,
  sessionIdReused,
  sessionUnknown,
  setModeUnadvertised,
  terminalNotReleased,
  terminalOutputLimit,
  terminalReleased,
  terminalUnknown,
  toolCallDuplicate,
  toolCallTerminalUnknown,
  toolCallUnknown,
  unknownValue,
  unknownVariant,
  updateOutsideTurn,
  versionMismatch,
  versionNotV1,
  versionUnusable,
  authMethodDuplicate,
  elicitationIdReused,
  positionEncodingUnoffered,
  messageIdReused,
  elicitationScopeUnknown,
  elicitationCompleteEnded,
  exitStatusConflict,
  authAfterLogout,
  sessionDeletedListed,
  toolCallStatusRegressed,
  listCursorUnknown,
  promptWhileLoading,
  turnEndedWithPendingRequests,
  elicitationPropertyNotPrimitive,
  terminalExitStatusMissing,
  terminalIdReused,
  unknownField,
  unstableField,
  // Transport rules: metadata of remote agents (transport events), not frames.
  transportConnectionIdMissing,
  transportSessionHeader,
  transportAcceptedStatus,
  transportWrongStream,
  transportPostContentType,
  transportResponseContentType,
];
