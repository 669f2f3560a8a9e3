// HTTP calls to the server's JSON API; errors carry the server's code and message.

export class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

export async function api(method, path, body) {
  const init = { method, headers: {}, credentials: "same-origin" };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(path, init);
  } catch (err) {
    throw new ApiError(0, "network", String(err));
  }
  if (response.status === 204) return null;
  const data = await response.json().catch(() => null);
  if (!response.ok) {
    // {"error": {code, message}}, or FastAPI's plain {"detail": "..."}
    const e = (data && data.error) || (data && typeof data.detail === "string" ? { message: data.detail } : {});
    throw new ApiError(response.status, e.code || "http_" + response.status, e.message || response.statusText);
  }
  return data;
}
