#include "core/model/workload.h"

#include <algorithm>

namespace tidepool {

bool AcceleratorRequest::allows(ModelId model) const
{
    return allowedModels.empty() || std::find(allowedModels.begin(), allowedModels.end(), model) != allowedModels.end();
}

} // namespace tidepool
