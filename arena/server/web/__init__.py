"""The running server's faces: web app, routes, templates, logins, guards, the admin's socket."""
