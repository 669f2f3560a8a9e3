"""The server's edge: the ASGI app, its HTTP API and WebSocket, auth and rate limits."""
