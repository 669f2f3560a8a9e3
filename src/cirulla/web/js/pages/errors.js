// Errors from the server (HTTP ApiError or a socket error frame) as readable text in the
// chosen language: a catalog string per known code ("error.<code>"), else the server's
// own message, else a generic line.
import { hasKey, t } from "../i18n.js";

export function readableError(err) {
  if (!err) return t("error.generic");
  const code = err.code || "";
  const message = err.message || "";
  const key = `error.${code}`;
  if (code && hasKey(key)) return t(key, { message });
  if (message) return message;
  return t("error.generic");
}
