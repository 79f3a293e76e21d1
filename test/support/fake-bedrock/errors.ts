/**
 * AWS's error replies (restJson1): the status, the `x-amzn-ErrorType` header (`Type:namespace-uri`) and a JSON body
 * `{"message": …}`. Errors of the service itself carry its namespace; those of AWS's authentication front door carry
 * Coral's, as the real service's do.
 */
export interface AwsErrorReply {
  status: number;
  headers: Record<string, string>;
  body: string;
}

const SERVICE_NAMESPACE = "http://internal.amazon.com/coral/com.amazon.bedrock/";
const FRONT_DOOR_NAMESPACE = "http://internal.amazon.com/coral/com.amazon.coral.service/";
const FRONT_DOOR = new Set(["InvalidSignatureException", "UnrecognizedClientException", "ExpiredTokenException", "MissingAuthenticationTokenException", "IncompleteSignatureException", "XAmzContentSHA256Mismatch"]);

/** Bedrock's documented statuses of its error types. */
export const STATUS: Record<string, number> = {
  AccessDeniedException: 403,
  ValidationException: 400,
  ThrottlingException: 429,
  ServiceQuotaExceededException: 400,
  ModelTimeoutException: 408,
  ModelNotReadyException: 429,
  ModelErrorException: 424,
  ResourceNotFoundException: 404,
  InternalServerException: 500,
  ServiceUnavailableException: 503,
};

export function awsErrorReply(type: string, message: string, status = STATUS[type] ?? 400): AwsErrorReply {
  const namespace = FRONT_DOOR.has(type) ? FRONT_DOOR_NAMESPACE : SERVICE_NAMESPACE;
  return {
    status,
    headers: { "content-type": "application/json", "x-amzn-errortype": `${type}:${namespace}`, "x-amzn-requestid": crypto.randomUUID() },
    body: JSON.stringify({ message: message }),
  };
}
