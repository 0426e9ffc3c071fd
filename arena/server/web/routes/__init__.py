"""The server's routes, one module an area: public pages, the JSON API, entrants' uploads and test games, logging in, the admin, the server's state."""
