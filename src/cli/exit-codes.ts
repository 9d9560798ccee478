/** Exit codes of every command (PRODUCT "Command line"). */
export const EXIT_OK = 0;
/** Some documents did not succeed (rejected, invalid, failed, in-doubt), or an unexpected failure. */
export const EXIT_NOT_ALL_SUCCEEDED = 1;
/** Usage or configuration error: bad arguments, invalid config, missing key file, mapping invalid. */
export const EXIT_USAGE = 2;
/** The service could not be reached, or it refused a company's credentials. */
export const EXIT_SERVICE = 3;

export const EXIT_CODES = {
  ok: EXIT_OK,
  notAllSucceeded: EXIT_NOT_ALL_SUCCEEDED,
  usage: EXIT_USAGE,
  service: EXIT_SERVICE,
} as const;

export type ExitCode = (typeof EXIT_CODES)[keyof typeof EXIT_CODES];
