"""The running server's faces: the web application (routes, pages, API, templates), logins and guards, and the admin's control socket."""
