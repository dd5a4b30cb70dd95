/// The lines of a command that stores data (`import`, `activity import`): writing them never stops
/// the work, as a report's failed write stops the report. A closed pipe (`dustctl import *.xml | head
/// -1`) silences the lines after it and the files are still imported (exit 0: the reader has what it
/// wanted); another write failure (a full disk, a closed stdout) silences them too and, once every
/// file is stored, ends the command with 74 saying that the import ran to the end. A line withheld
/// for echoing the key (65) is only that line.
struct WorkOutput {
    private var failure: OutputError?
    private var silenced = false

    mutating func line(_ text: String) {
        guard !silenced else { return }
        do throws(OutputError) {
            try standardOutputLine(text)
        } catch {
            switch error {
            case .closedPipe: silenced = true
            case .failed: (silenced, failure) = (true, error)
            case .withheld: failure = failure ?? error
            }
        }
    }

    /// Says the failure to write on stderr, if there was one: for a command that ends with its files'
    /// failure, whose status stands.
    func sayFailure(_ language: ReportLanguage) {
        do throws(CommandFailure) { try finish(language) } catch { standardError(error.message) }
    }

    /// Throws the failure to write, if there was one, with what was done all the same.
    func finish(_ language: ReportLanguage) throws(CommandFailure) {
        guard let failure, let command = CommandFailure(failure) else { return }
        throw CommandFailure(
            command.status, korean: command.message + " 가져오기는 끝까지 했습니다.",
            english: command.english + " The import ran to the end all the same.", language: language)
    }
}
