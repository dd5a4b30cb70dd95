import HTTPTypes
import Hummingbird

/// What a phone needs to put the dashboard on its home screen (docs/REFERENCE.md §13): a web app
/// manifest and an icon. Neither holds any data, so both are open without a token (a browser fetches
/// the manifest without the session cookie).
enum WebApp {
    static let manifestPath = "/manifest.webmanifest"
    static let iconPath = "/icon.svg"

    static let manifest = """
        {"name":"FineDust 미세먼지","short_name":"미세먼지","description":"How much fine dust you breathed today",\
        "start_url":"/","scope":"/","display":"standalone","background_color":"#f3f4f6","theme_color":"#1d5fd1",\
        "icons":[{"src":"/icon.svg","sizes":"any","type":"image/svg+xml","purpose":"any"}]}

        """

    /// A blue disc with three grains of dust, drawn with shapes only (no font, no script).
    static let icon = """
        <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 512 512">\
        <rect width="512" height="512" rx="112" fill="#1d5fd1"/>\
        <circle cx="196" cy="210" r="64" fill="#ffffff"/>\
        <circle cx="332" cy="188" r="40" fill="#ffffff" opacity="0.85"/>\
        <circle cx="300" cy="330" r="52" fill="#ffffff" opacity="0.7"/>\
        </svg>

        """

    static var manifestReply: WebReply {
        WebReply(status: .ok, headers: [.contentType: "application/manifest+json", .cacheControl: "max-age=86400"], text: manifest)
    }

    static var iconReply: WebReply {
        WebReply(status: .ok, headers: [.contentType: "image/svg+xml", .cacheControl: "max-age=86400"], text: icon)
    }
}
