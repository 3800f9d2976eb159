#include "app/tidepoold/token_command.h"

#include "core/api/operator_tokens.h"

#include <cstdio>
#include <functional>
#include <map>
#include <string>
#include <string_view>

namespace tidepool {

namespace {

constexpr const char* kUsage = "usage: tidepoold token add --token-file FILE --name NAME --role viewer|operator|admin\n"
                               "       tidepoold token remove --token-file FILE --name NAME\n"
                               "       tidepoold token migrate --token-file FILE --name NAME [--role ROLE]\n"
                               "       tidepoold token list --token-file FILE\n";

int usage(const std::string& message)
{
    std::fprintf(stderr, "tidepoold token: %s\n%s", message.c_str(), kUsage);
    return 2;
}

int failed(const Error& error)
{
    std::fprintf(stderr, "tidepoold token: %s\n", error.message.c_str());
    return error.code == ErrorCode::IoError ? 1 : 2;
}

} // namespace

int runTokenCommand(int argc, const char* const* argv)
{
    if (argc < 3)
        return usage("give a subcommand");
    const std::string_view command = argv[2];
    if (command == "--help" || command == "-h") {
        std::fputs(kUsage, stdout);
        return 0;
    }
    if (command != "add" && command != "remove" && command != "migrate" && command != "list")
        return usage("unknown subcommand \"" + std::string(command) + "\"");
    std::map<std::string, std::string, std::less<>> options;
    for (int i = 3; i < argc; ++i) {
        const std::string_view option = argv[i];
        if (option != "--token-file" && option != "--operator-token-file" && option != "--name" && option != "--role")
            return usage("unknown option " + std::string(option));
        if (i + 1 >= argc)
            return usage(std::string(option) + " needs a value");
        options[option == "--operator-token-file" ? "--token-file" : std::string(option)] = argv[++i];
    }
    if (!options.contains("--token-file"))
        return usage("--token-file is required");
    const std::string& path = options["--token-file"];
    if (command == "list") {
        if (options.size() != 1)
            return usage("list takes only --token-file");
        auto file = api::readTokenFile(path);
        if (!file)
            return failed(file.error());
        // Names and roles only: the file holds nothing else worth showing, and never a token.
        std::printf("%-24s %s\n", "NAME", "ROLE");
        for (const api::OperatorToken& t : file->tokens)
            std::printf("%-24s %s%s\n", t.actor().c_str(), std::string(api::toString(t.role)).c_str(),
                t.plaintext ? " (plaintext: migrate it)" : "");
        return 0;
    }
    if (!options.contains("--name"))
        return usage("--name is required");
    const std::string& name = options["--name"];
    if (command == "remove") {
        if (options.contains("--role"))
            return usage("remove takes no --role");
        if (auto removed = api::removeToken(path, name); !removed)
            return failed(removed.error());
        std::fprintf(stderr,
            "tidepoold token: removed \"%s\" from %s; send tidepoold SIGHUP (or restart it) to refuse it\n",
            name.c_str(), path.c_str());
        return 0;
    }
    if (command == "add" && !options.contains("--role"))
        return usage("--role is required (viewer, operator or admin)");
    const auto role = options.contains("--role") ? api::parseRole(options["--role"]) : api::Role::Admin;
    if (!role)
        return usage("--role: \"" + options["--role"] + "\" must be viewer, operator or admin");
    if (command == "migrate") {
        if (auto migrated = api::migrateTokenFile(path, name, *role); !migrated)
            return failed(migrated.error());
        std::fprintf(stderr,
            "tidepoold token: %s now holds the salted hash of its token, named \"%s\" with the %s role; clients keep "
            "their token; send tidepoold SIGHUP (or restart it) to read it\n",
            path.c_str(), name.c_str(), std::string(api::toString(*role)).c_str());
        return 0;
    }
    auto token = api::addToken(path, name, *role);
    if (!token)
        return failed(token.error());
    // The token alone on standard output, so that `tidepoold token add ... > alice.token` makes a client's file; it is
    // shown this once: the file keeps only its hash.
    std::printf("%s\n", token->c_str());
    std::fflush(stdout);
    std::fprintf(stderr,
        "tidepoold token: added \"%s\" (%s) to %s; the token above is shown only now; send tidepoold SIGHUP (or "
        "restart it) to accept it\n",
        name.c_str(), std::string(api::toString(*role)).c_str(), path.c_str());
    return 0;
}

} // namespace tidepool
