"""The server's routes, a module an area: public pages, JSON API, uploads and test games, login, admin, server state."""
