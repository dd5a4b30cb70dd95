import DustKit
import DustServices

/// The 404 of a dashboard page (`/`, `/day/…`, `/week/…`) a person opened in a browser: a page in the page's
/// language, with a title, its `lang` and a way back to today, where it was a line of English text (a Korean
/// phone showed `No such page: …` with nothing to tap). The API's 404s stay text for the programs that read them.
enum NotFoundPage {
    /// The sentence in both languages: why there is no such page.
    struct Reason: Sendable {
        var korean: String
        var english: String
    }

    static func reply(_ reason: Reason, language: PageLanguage) -> WebReply {
        let korean = language == .korean
        let title = korean ? "페이지가 없습니다" : "No such page"
        let back = korean ? "오늘의 대시보드로" : "Back to today"
        let page = StandalonePage.document(
            language: language, title: "\(title) · FineDust", styleSheet: styleSheet,
            main: """
                <h1>\(title)</h1>
                <p>\(korean ? reason.korean : reason.english)</p>
                <p><a href="/?lang=\(language.rawValue)">\(back)</a></p>
                """)
        return WebResponse.html(page, styleSheet: styleSheet, status: .notFound)
    }

    /// A date or week FineDust does not keep, or written wrong (docs/REFERENCE.md §13).
    static func reason(_ refusal: TypedPeriodError) -> Reason {
        Reason(korean: refusal.korean, english: "No such page: " + refusal.description)
    }

    /// `?person=` naming nobody this asker may see (docs/REFERENCE.md §18): the configured names only to
    /// the administrator, as the API says them.
    /// Without the configured names (a person's token, a stranger) it says only that there is no such person.
    static func reason(_ unknown: UnknownPerson) -> Reason {
        let name = TerminalSafeText.shown(unknown.name, characters: 80)
        return unknown.configured.isEmpty
            ? Reason(korean: "\"\(name)\"(이)라는 구성원은 없습니다.", english: "No such person: \"\(name)\".")
            : Reason(korean: unknown.korean, english: "No such person: " + unknown.description + ".")
    }

    static let styleSheet = """
        :root{color-scheme:light dark;--fg:#1b1f24;--bg:#fafafa;--accent:#0b57d0}
        @media (prefers-color-scheme:dark){:root{--fg:#e6e8eb;--bg:#0f1115;--accent:#8ab4f8}}
        body{margin:0;font:100%/1.5 system-ui,-apple-system,"Apple SD Gothic Neo","Noto Sans KR",sans-serif;color:var(--fg);background:var(--bg)}
        main{max-width:32rem;margin:0 auto;padding:2rem 1rem}
        h1{font-size:1.4rem}
        a{color:var(--accent)}
        """
}

/// The frame of the pages that are not the dashboard (the sign-in form, a page's 404): one document in the
/// page's language, sized for a phone, light or dark, whose only active content is its `<style>`.
enum StandalonePage {
    static func document(language: PageLanguage, title: String, styleSheet: String, main: HTML) -> String {
        let page: HTML = """
            <!DOCTYPE html>
            <html lang="\(language.rawValue)">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <meta name="color-scheme" content="light dark">
            <title>\(title)</title>
            <style>\(HTML(trustedMarkup: styleSheet))</style>
            </head>
            <body>
            <main>
            \(main)
            </main>
            </body>
            </html>

            """
        return page.markup
    }
}
